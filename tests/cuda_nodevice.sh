#!/bin/sh
# cuda_nodevice.sh - test_cuda_errors on an emulated machine whose CUDA
# driver is too old for the runtime: the library counts no device, says why
# in its messages, trains on the CPU with device=auto and refuses
# device=cuda.  GBT_EMU_VARIANT (asan, tsan) picks that build's program.
suffix=${GBT_EMU_VARIANT:+_$GBT_EMU_VARIANT}
GBT_EMU_NO_DRIVER=1
export GBT_EMU_NO_DRIVER
exec "${top_builddir:-.}/tests/test_cuda_errors$suffix"
