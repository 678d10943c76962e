#!/bin/sh
# Install everything pvmam needs on a fresh Debian 12 machine (run as root).
# Idempotent: skips apt when every package is already installed.
set -eu
PKGS="build-essential autoconf automake libtool pkg-config check libtirpc-dev
      pvm pvm-dev libpvm3 pvm-examples gnuplot-nox nftables iproute2
      libfftw3-dev valgrind util-linux procps gfortran libreadline-dev
      clang libclang-rt-14-dev openmpi-bin libopenmpi-dev groff-base man-db mandoc
      libucx-dev ucx-utils libfftw3-mpi-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing:$missing"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
else
    echo "install-deps: all packages present"
fi
