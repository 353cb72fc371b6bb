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
rm -rf "$work"
done_testing
