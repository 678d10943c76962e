#!/bin/sh
# pvmvm.sh - start and stop a private, real PVM virtual machine for one test.
# Source it, then:  vm_start  (exports PVM_TMP, PVM_ROOT, PVM_ALLOW_ROOT, HOME;
#                              sets VM_PID and VM_BIN, where bare-name spawns look)
#                   ...run programs...
#                   vm_stop   (also run from the EXIT trap vm_start installs)
# Each VM has its own PVM_TMP directory, so tests never share a daemon.
# VM_WRAP, if set, is a command prefix the pvmd is started under (it must
# exec, so VM_PID stays the pvmd's pid); tests/lib/netvm.sh uses it to put
# the master pvmd on a namespace host.

: "${PVMD:=pvmd}"
VM_PID=""
VM_DIR=""
VM_WRAP=${VM_WRAP:-}

vm_start() {
    VM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvmvm.XXXXXX") || return 1
    PVM_TMP=$VM_DIR PVM_ROOT=${PVM_ROOT:-/usr/lib/pvm3} PVM_ALLOW_ROOT=1
    export PVM_TMP PVM_ROOT PVM_ALLOW_ROOT
    unset PVMSOCK PVMEPID PVM_VMID
    # The pvmd finds programs spawned by bare name in $HOME/pvm3/bin/LINUX64:
    # give it a private HOME so tests can install programs there (VM_BIN).
    HOME=$VM_DIR; export HOME
    VM_BIN=$VM_DIR/pvm3/bin/LINUX64
    mkdir -p "$VM_BIN"
    trap 'vm_atexit' EXIT
    trap 'vm_atexit; exit 130' INT TERM
    $VM_WRAP "$PVMD" -d0 "$@" </dev/null >"$VM_DIR/pvmd.out" 2>&1 &
    VM_PID=$!
    i=0
    while [ ! -s "$VM_DIR/pvmd.$(id -u)" ]; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$VM_PID" 2>/dev/null; then
            echo "pvmvm: pvmd did not start" >&2
            cat "$VM_DIR/pvmd.out" "$VM_DIR/pvml.$(id -u)" >&2 2>/dev/null
            return 1
        fi
        sleep 0.1
    done
}

# Tests may redefine vm_cleanup to remove their own files at exit.
vm_cleanup() { :; }
# What the exit trap runs; helpers built on this one (netvm.sh) redefine it.
vm_atexit() { vm_stop; vm_cleanup; }

vm_stop() {
    [ -n "$VM_PID" ] || return 0
    if kill -0 "$VM_PID" 2>/dev/null; then
        kill -TERM "$VM_PID" 2>/dev/null
        i=0
        while kill -0 "$VM_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$VM_PID" 2>/dev/null
    fi
    wait "$VM_PID" 2>/dev/null
    VM_PID=""
    [ -n "$VM_DIR" ] && rm -rf "$VM_DIR"
    VM_DIR=""
}

# Show the daemon log (for failure diagnostics).
vm_log() { cat "$VM_DIR/pvml.$(id -u)" 2>/dev/null; }
