#!/bin/sh
# check.sh - sets up and builds gbt, then runs its test suite (make check).
# With nvcc present the CUDA backend is built too; its GPU tests skip when
# no GPU is there.  Ends with the test counts.
set -e
cd "$(dirname "$0")/.."
. scripts/deps.sh
gbt_build
status=0
make -j"$(nproc 2>/dev/null || echo 2)" check || status=$?
awk '/^# TOTAL:/ { t = $3 } /^# PASS:/ { p = $3 } /^# SKIP:/ { s = $3 }
     /^# (FAIL|XPASS|ERROR):/ { f += $3 }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' test-suite.log
exit $status
