#!/bin/sh
# emu_variant.sh - the LOG_COMPILER of make check-cuda-emu-asan and -tsan:
# they run the emulated tests by their plain names (automake has rules for
# those), and this runs the build named by GBT_EMU_VARIANT (asan, tsan)
# instead: tests/test_backend becomes tests/test_backend_asan.
prog=$1
shift
exec "${prog}_${GBT_EMU_VARIANT:?GBT_EMU_VARIANT names the build}" "$@"
