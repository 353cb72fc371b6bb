#!/bin/sh
# check.sh - sets up and builds gbt, then runs its test suite (make check).
# With nvcc present the CUDA backend is built too (a tree that quickstart.sh
# configured without it is reconfigured): for this machine's GPUs'
# architectures, or, without a GPU, for one (sm_90: the check that nvcc
# compiles the CUDA code; its tests run on the CUDA emulator, and GPU tests
# skip).  GBT_CONFIGURE_FLAGS adds configure options (an architecture list
# of its own, --with-cuda-arch or --without-cuda, wins).  Ends with the test
# counts.
set -e
cd "$(dirname "$0")/.."
gbt_want_mpi=1 # the distributed-training tests need Open MPI
. scripts/deps.sh
case " ${GBT_CONFIGURE_FLAGS-} " in
*" --without-cuda "*) ;;
*" --with-cuda-arch"*) gbt_cuda_wanted=1 ;;
*)
    if gbt_have_nvcc; then
        gbt_cuda_wanted=1
        gbt_archs=$(gbt_gpu_archs | tr ' ' ',')
        GBT_CONFIGURE_FLAGS="${GBT_CONFIGURE_FLAGS-} --with-cuda-arch=${gbt_archs:-90}"
    fi
    ;;
esac
if [ -n "${gbt_cuda_wanted-}" ] && gbt_cuda_left_out; then
    gbt_step "this tree is configured without the CUDA backend (quickstart.sh on a machine without a GPU);"
    gbt_step "reconfiguring with it, so that its tests run (on the emulator without a GPU): this discards"
    gbt_step "the quickstart build (make clean); the rebuild with the CUDA code takes a few minutes (the"
    gbt_step "library, about a minute, then nvcc: about 10 s per .cu file and architecture on 2 cores)"
    # shellcheck disable=SC2086
    ./configure $GBT_CONFIGURE_FLAGS
    make clean
fi
gbt_build
status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?
awk '/^# TOTAL:/ { t = $3 } /^# PASS:/ { p = $3 } /^# SKIP:/ { s = $3 }
     /^# (FAIL|XPASS|ERROR):/ { f += $3 }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' test-suite.log
exit $status
