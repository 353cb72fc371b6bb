#!/bin/sh
# check.sh - sets up and builds gbt, then runs its test suite (make check).
# With nvcc present the CUDA backend is built too (a tree that quickstart.sh
# configured without it is reconfigured); its GPU tests skip when no GPU is
# there.  Ends with the test counts.
set -e
cd "$(dirname "$0")/.."
gbt_want_mpi=1 # the distributed-training tests need Open MPI
. scripts/deps.sh
if [ -z "${GBT_CONFIGURE_FLAGS+set}" ] && gbt_cuda_left_out; then
    gbt_step "this tree is configured without the CUDA backend (quickstart.sh on a machine without a GPU);"
    gbt_step "reconfiguring with it, so that its tests run (on the emulator without a GPU)"
    ./configure
    make clean
fi
gbt_build
status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?
awk '/^# TOTAL:/ { t = $3 } /^# PASS:/ { p = $3 } /^# SKIP:/ { s = $3 }
     /^# (FAIL|XPASS|ERROR):/ { f += $3 }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' test-suite.log
exit $status
