#!/bin/sh
# cuda_interleave.sh - test_backend on the CUDA emulator with four blocks of
# each launch running at once and a switch after every atomic operation, so
# that blocks that add to the same histogram or maximum interleave
# (GBT_EMU_INTERLEAVE, tests/cuda-emu/README.md); two objectives, small cases
# (GBT_TEST_QUICK=3), without the continued trainings (the same kernels as
# the trainings; test_backend.c's main says why).
#
# Not in the sanitizer runs (GBT_TEST_QUICK set by the caller: .ci/run's
# AddressSanitizer suite): what this test adds is the order in which the
# blocks' atomic operations land, which the plain run checks; the memory
# each kernel touches does not depend on that order, and test_backend
# checks it under the sanitizer.
if [ -n "${GBT_TEST_QUICK:-}" ]; then
    echo "1..0 # SKIP GBT_TEST_QUICK=$GBT_TEST_QUICK (a sanitizer run): the interleaving is checked by the plain run; test_backend checks these kernels' memory under the sanitizer"
    exit 0
fi
GBT_EMU_INTERLEAVE=4
GBT_TEST_QUICK=3
export GBT_EMU_INTERLEAVE GBT_TEST_QUICK
exec "${top_builddir:-.}/tests/test_backend"
