# Sourced by the tests that check /dev/shm (tests/libam/am-shm.sh and
# tests/integration's suite-shm.sh, suite-mixed.sh, churn.sh):
# libam's shm transport makes no file at all (memfd), so after the suite
# /dev/shm may hold nothing that was not there before.  Entries that came
# and went meanwhile, and Open MPI's own segments (vader_segment.*: the
# mpbench test may run mpbench_mpi at the same time under make -j), are
# other programs' business.
devshm_list() { ls -A /dev/shm 2>/dev/null | grep -v '^vader_segment\.'; }
devshm_before=$(devshm_list)
# 0 and "ok" if nothing new is left, else 1 and the new entries.
devshm_check() {
    new=$(devshm_list | while read -r f; do
        printf '%s\n' "$devshm_before" | grep -qxF -- "$f" || echo "$f"
    done)
    if [ -n "$new" ]; then
        echo "FAIL: left in /dev/shm by the suite:" $new
        return 1
    fi
    echo "ok: nothing new in /dev/shm"
}
