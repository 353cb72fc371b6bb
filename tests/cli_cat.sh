#!/bin/sh
# cli_cat.sh - categorical features from the command line: gbtrain's
# --categorical_feature (numbers or names) and --feature_types (also in a
# config file) give the same model; bad lists and bad category values are
# clean errors naming the option, or the file, line and column.
. "${top_srcdir:-.}/tests/tap.sh"
# 60 rows: y, x, a category code of 5 (column "shop"); line 1 the header
awk 'BEGIN { print "y,x,shop"; for (i = 0; i < 60; i++) { c = (i * 7) % 5; print (c == 3 ? 2 : 0) + (i % 3) * 0.1 "," (i % 3) + 0.5 "," c } }' \
    > "$work/tr.csv"
check "--categorical_feature=1 trains" $gbtrain -q --header --num_round=3 --categorical_feature=1 "$work/tr.csv" "$work/a.model"
check "the model holds categorical splits" grep -q '"categories_nodes"' "$work/a.model"
check "--categorical_feature=name:shop trains" $gbtrain -q --header --num_round=3 --categorical_feature=name:shop "$work/tr.csv" "$work/b.model"
check "by name and by number give the same model" cmp "$work/a.model" "$work/b.model"
check "--feature_types=q,c trains" $gbtrain -q --header --num_round=3 --feature_types=q,c "$work/tr.csv" "$work/c.model"
check "XGBoost's feature_types gives the same model" cmp "$work/a.model" "$work/c.model"
printf 'feature_types = "q,c"\nnum_round = 3\nheader = 1\n' > "$work/cat.conf"
check "feature_types in a config file trains" $gbtrain -q --config="$work/cat.conf" "$work/tr.csv" "$work/d.model"
check "and gives the same model" cmp "$work/a.model" "$work/d.model"
$gbmodel dump "$work/a.model" > "$work/dump.txt" 2>&1
check "the text dump shows a set of categories" grep -q 'shop:{' "$work/dump.txt"
fails "a fraction in a categorical column names the file, line and column" "tr.csv:2: column 1 \(feature 0, x\) is categorical but holds 0.5" \
    $gbtrain -q --header --categorical_feature=0 "$work/tr.csv" "$work/e.model"
fails "an unknown name is refused" "no feature is named 'store'" \
    $gbtrain -q --header --categorical_feature=name:store "$work/tr.csv" "$work/e.model"
fails "a column beyond the features is refused" "'2' is not a feature column from 0 to 1" \
    $gbtrain -q --header --categorical_feature=2 "$work/tr.csv" "$work/e.model"
fails "both options at once are refused" "give one" \
    $gbtrain -q --header --categorical_feature=1 --feature_types=q,c "$work/tr.csv" "$work/e.model"
fails "too few feature_types are refused" "fewer types" \
    $gbtrain -q --header --feature_types=c "$work/tr.csv" "$work/e.model"
fails "continued training without the model's types is refused" "feature 1 \(shop\) is numeric, but the model treats it as categorical" \
    $gbtrain -q --header --num_round=1 --model_in="$work/a.model" "$work/tr.csv" "$work/e.model"
$gbpredict -q --header "$work/tr.csv" "$work/a.model" "$work/p1.txt"
$gbpredict -q --header --categorical_feature=1 "$work/tr.csv" "$work/a.model" "$work/p2.txt"
check "gbpredict --categorical_feature checks the codes and predicts the same" cmp "$work/p1.txt" "$work/p2.txt"
fails "gbpredict names a bad code's line and column" "tr.csv:2: column 1 \(feature 0, x\) is categorical" \
    $gbpredict -q --header --categorical_feature=0 "$work/tr.csv" "$work/a.model" "$work/p3.txt"
$gbtrain --help > "$work/help.txt" 2>&1
check "--help names --categorical_feature" grep -q -- --categorical_feature "$work/help.txt"
# issue 38, finding 5: an error raised in an OpenMP worker (binning a feature)
# reaches the caller with its message, the lowest feature's when several
# fail, at any thread count: 65536 rows, features 3 and 6 categorical with
# 65536 distinct codes each (one more than gbt supports), the others numeric.
awk 'BEGIN { for (i = 0; i < 65536; i++) print i % 2 "," i % 3 "," i % 5 "," i % 7 "," i "," i % 11 "," i % 13 "," (i * 7) % 65536 "," i % 17 }' \
    > "$work/many.csv"
want="gbtrain: training: categorical feature 3 has 65536 distinct categories in the training data; gbt supports at most 65535"
# 20 runs at each thread count; 5 in the sanitizer runs (GBT_TEST_QUICK), whose
# point is the memory of each run, not the count
runs=20
[ -n "${GBT_TEST_QUICK:-}" ] && runs=5
for t in 1 2 8; do
    good=0
    for i in $(seq "$runs"); do
        "$builddir/gbtrain" -q --num_round=1 --nthread=$t --feature_types=q,q,q,c,q,q,c,q "$work/many.csv" \
            "$work/many.model" 2> "$work/many.err"
        [ $? -eq 1 ] && [ "$(cat "$work/many.err")" = "$want" ] && good=$((good + 1))
    done
    check "nthread=$t: the worker's message, feature 3's (not 6's), in $good of $runs runs: $(head -c 200 "$work/many.err")" \
        test $good -eq "$runs"
done
check "(and no model is written)" test ! -e "$work/many.model"
rm -rf "$work"

done_testing
