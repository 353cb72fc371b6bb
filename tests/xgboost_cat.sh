#!/bin/sh
# xgboost_cat.sh - categorical splits between gbt and XGBoost
# (tests/xgboost_cat.py), when python3 can import xgboost and numpy.
. "${top_srcdir:-.}/tests/tap.sh"
if ! python_finds xgboost numpy; then
    echo "1..0 # SKIP python3 cannot import xgboost and numpy (pip install xgboost numpy)"
    exit 0
fi
if [ -n "${GBT_TEST_WRAPPER:-}" ]; then
    echo "1..0 # SKIP under GBT_TEST_WRAPPER: this compares predictions with XGBoost's"
    exit 0
fi
python3 "$srcdir/tests/xgboost_cat.py" "$builddir" "$work"
status=$?
rm -rf "$work"
exit $status
