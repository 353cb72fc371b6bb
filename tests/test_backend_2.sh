#!/bin/sh
# test_backend_2.sh - the second half of test_backend's cases (GBT_TEST_PART,
# tests/test_backend.c); test_backend_1.sh runs the other half, so that
# make -j2 check runs test_backend, the longest test, on two cores.
# GBT_EMU_VARIANT (asan, tsan) picks that build's program.
GBT_TEST_PART=2/2
export GBT_TEST_PART
exec "${top_builddir:-.}/tests/test_backend${GBT_EMU_VARIANT:+_$GBT_EMU_VARIANT}"
