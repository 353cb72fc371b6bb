#!/bin/sh
# cuda_interleave.sh - test_backend on the CUDA emulator with four blocks of
# each launch running at once and a switch after every atomic operation, so
# that blocks that add to the same histogram or maximum interleave
# (GBT_EMU_INTERLEAVE, cuda/emu/README.md); two objectives, small cases
# (GBT_TEST_QUICK=3).
GBT_EMU_INTERLEAVE=4
GBT_TEST_QUICK=3
export GBT_EMU_INTERLEAVE GBT_TEST_QUICK
exec "${top_builddir:-.}/tests/test_backend"
