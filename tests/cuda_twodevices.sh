#!/bin/sh
# cuda_twodevices.sh - test_cuda_errors on an emulated machine with two
# devices: the calling thread's current device (1) is the same after
# training, predicting and describing on cuda:0.  GBT_EMU_VARIANT (asan,
# tsan) picks that build's program.
suffix=${GBT_EMU_VARIANT:+_$GBT_EMU_VARIANT}
GBT_EMU_DEVICE=count=2
export GBT_EMU_DEVICE
exec "${top_builddir:-.}/tests/test_cuda_errors$suffix"
