#!/bin/sh
# cli_explain.sh - gbpredict --pred_leaf, --pred_contribs (--approx_contribs),
# --pred_interactions and --rounds: line and field counts, SHAP values summing to the margins,
# a range of rounds predicting what a model of those rounds predicts.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

"$gbtrain" -q --objective=binary:logistic --num_round=8 --max_depth=4 "$data/breast_cancer.train.csv" \
    --model_out=bc8.model
"$gbtrain" -q --objective=binary:logistic --num_round=3 --max_depth=4 "$data/breast_cancer.train.csv" \
    --model_out=bc3.model
test=$data/breast_cancer.test.csv

"$gbpredict" -q --margin "$test" bc8.model margin.txt
"$gbpredict" -q --pred_contribs "$test" bc8.model contribs.txt
check "--pred_contribs: one line per row (142) of 30 SHAP values and the bias term" \
    awk 'NF != 31 { exit 1 } END { if (NR != 142) exit 1 }' contribs.txt
check "each line of SHAP values sums to the row's margin (1e-5)" \
    sh -c 'paste contribs.txt margin.txt | awk "{ s = 0; for (i = 1; i <= 31; i++) s += \$i; d = s - \$32; if (d < 0) d = -d; m = \$32 < 0 ? -\$32 : \$32; if (d > 1e-5 * (m > 1 ? m : 1)) exit 1 }"'

"$gbpredict" -q --pred_contribs --approx_contribs "$test" bc8.model approx.txt
check "--approx_contribs: 31 values a line, summing to the margin (1e-5), not the exact SHAP values" \
    sh -c '! cmp -s approx.txt contribs.txt && paste approx.txt margin.txt | awk "NF != 32 { exit 1 } { s = 0; for (i = 1; i <= 31; i++) s += \$i; d = s - \$32; if (d < 0) d = -d; m = \$32 < 0 ? -\$32 : \$32; if (d > 1e-5 * (m > 1 ? m : 1)) exit 1 }"'
"$gbpredict" -q --pred_interactions --approx_contribs "$test" bc8.model approxi.txt
check "--pred_interactions --approx_contribs: the approximate values on the diagonal, 0 elsewhere (XGBoost's)" \
    sh -c 'paste approx.txt approxi.txt | awk "NF != 31 + 961 { exit 1 } { for (i = 0; i < 31; i++) for (j = 0; j < 31; j++) { v = \$(32 + i * 31 + j); if (v != (i == j ? \$(i + 1) : 0)) exit 1 } }"'
fails "--approx_contribs without --pred_contribs" "approximates the SHAP values of --pred_contribs" \
    "$gbpredict" -q --approx_contribs "$test" bc8.model out.txt

"$gbpredict" -q --pred_leaf "$test" bc8.model leaf.txt
check "--pred_leaf: 8 leaf ids per line, whole numbers" \
    awk 'NF != 8 { exit 1 } { for (i = 1; i <= NF; i++) if ($i != int($i) || $i < 1) exit 1 } END { if (NR != 142) exit 1 }' leaf.txt

"$gbpredict" -q --pred_interactions "$test" bc8.model inter.txt
check "--pred_interactions: 31 x 31 values per line, each block row summing to the SHAP value" \
    sh -c 'paste inter.txt contribs.txt | awk "NF != 961 + 31 { exit 1 } { for (i = 0; i < 31; i++) { s = 0; for (j = 1; j <= 31; j++) s += \$(i * 31 + j); d = s - \$(962 + i); if (d < 0) d = -d; if (d > 1e-5) exit 1 } }"'

"$gbpredict" -q --margin --rounds=0:3 "$test" bc8.model r03.txt
"$gbpredict" -q --margin "$test" bc3.model m3.txt
check "--rounds=0:3 predicts what a model of 3 rounds predicts" cmp -s r03.txt m3.txt
"$gbpredict" -q --margin --rounds=0: "$test" bc8.model r0.txt
check "--rounds=0: is the whole model" cmp -s r0.txt margin.txt
"$gbpredict" -q --pred_leaf --rounds=3:5 "$test" bc8.model leaf35.txt
check "--pred_leaf --rounds=3:5: the columns of rounds 3 and 4" \
    sh -c 'cut -f4,5 leaf.txt | cmp -s - leaf35.txt'

fails "--rounds beyond the model's rounds" "not a range of the model's 8 rounds" \
    "$gbpredict" -q --rounds=2:9 "$test" bc8.model out.txt
fails "--rounds without a colon" "expected A:B" "$gbpredict" -q --rounds=3 "$test" bc8.model out.txt
fails "two --pred_ options" "exclude each other" \
    "$gbpredict" -q --pred_leaf --pred_contribs "$test" bc8.model out.txt
fails "--metric with --pred_contribs" "not with --rounds or --pred_" \
    "$gbpredict" -q --pred_contribs --metric=auc "$test" bc8.model out.txt

"$gbtrain" -q --objective=multi:softprob --num_class=10 --num_round=2 --max_depth=3 \
    "$data/digits.train.csv" --model_out=digits.model
"$gbpredict" -q --pred_contribs "$data/digits.test.csv" digits.model dc.txt
"$gbpredict" -q --margin "$data/digits.test.csv" digits.model dm.txt
check "multi:softprob: 10 blocks of 65 values per line, block k summing to class k's margin" \
    sh -c 'paste dc.txt dm.txt | awk "NF != 660 { exit 1 } { for (k = 0; k < 10; k++) { s = 0; for (j = 1; j <= 65; j++) s += \$(k * 65 + j); d = s - \$(651 + k); if (d < 0) d = -d; if (d > 1e-5) exit 1 } }"'

done_testing
