#!/bin/sh
# xgboost_interop.sh - XGBoost JSON models between gbt and XGBoost itself
# (tests/xgboost_interop.py), when python3 can import xgboost and numpy.
. "${top_srcdir:-.}/tests/tap.sh"
if ! python_finds xgboost numpy; then
    echo "1..0 # SKIP python3 cannot import xgboost and numpy (pip install xgboost numpy); test_xgboost_json checks the format without them"
    exit 0
fi
if [ -n "${GBT_TEST_WRAPPER:-}" ]; then
    echo "1..0 # SKIP under GBT_TEST_WRAPPER: this compares predictions with XGBoost's; the same tools run under the wrapper in cli_basic.sh"
    exit 0
fi
python3 "$srcdir/tests/xgboost_interop.py" "$builddir" "$data" "$work"
