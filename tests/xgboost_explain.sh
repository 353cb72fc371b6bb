#!/bin/sh
# xgboost_explain.sh - leaf ids, SHAP values (exact and approx_contribs), SHAP
# interaction values and
# round ranges against XGBoost's on the same trees (tests/xgboost_explain.py
# writes gbt's model in XGBoost's JSON schema): a regression and a
# 10-class model.  Skipped without Python and xgboost.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
if ! python_finds xgboost numpy; then
    echo "1..0 # SKIP python3 with numpy and xgboost is not importable"
    exit 0
fi
"$gbtrain" -q --objective=reg:squarederror --num_round=5 --max_depth=4 "$data/diabetes.train.csv" \
    --model_out=reg.model
"$gbtrain" -q --objective=multi:softprob --num_class=10 --num_round=3 --max_depth=3 "$data/digits.train.csv" \
    --model_out=digits.model
python3 "$srcdir/tests/xgboost_explain.py" reg.model "$data/diabetes.test.csv" "$builddir/gbpredict" "$work" > a.tap
python3 "$srcdir/tests/xgboost_explain.py" digits.model "$data/digits.test.csv" "$builddir/gbpredict" "$work" > b.tap
cat a.tap b.tap | awk '{ sub(/^(not )?ok [0-9]+ /, (/^not/ ? "not ok " : "ok ") NR " ") } 1
                        /^not ok/ { failed++ } END { print "1.." NR; exit (NR == 12 && !failed) ? 0 : 1 }'
