#!/bin/sh
# cli_model_check.sh - a corrupted model is refused when it loads, in both
# formats, with a message naming the file, the tree, the node and the
# problem (issue 38, finding 4; src/model/model_check.c).  Each corruption
# below loaded before and predicted other values without a word.
. "${top_srcdir:-.}/tests/tap.sh"
# cli_cat.sh's data: tree 0 splits node 0 on the categorical "shop" (set
# {0,1,2,4} right), node 1 is a leaf, node 2 splits on the numeric x
awk 'BEGIN { print "y,x,shop"; for (i = 0; i < 60; i++) { c = (i * 7) % 5; print (c == 3 ? 2 : 0) + (i % 3) * 0.1 "," (i % 3) + 0.5 "," c } }' \
    > "$work/tr.csv"
printf 'x,shop\n0.5,3\n1.5,1\n' > "$work/p.csv"
gbtrain -q --header --num_round=3 --categorical_feature=1 "$work/tr.csv" "$work/a.model"
gbmodel convert --to=xgboost "$work/a.model" "$work/x.json" > /dev/null
check "the categorical model predicts" gbpredict -q --header "$work/p.csv" "$work/a.model" "$work/p.txt"
check "its XGBoost export loads" gbpredict -q --header "$work/p.csv" "$work/x.json" "$work/px.txt"
check "the tree is as the tests below assume" grep -q '"categories_nodes": \[0\]' "$work/a.model"
# edit FROM TO IN OUT: the first FROM of each line replaced (sed's basic expressions)
edit() { sed "s/$1/$2/" "$3" > "$work/$4"; }

# the gbt format
edit '"categories_nodes": \[0\]' '"categories_nodes": [1]' "$work/a.model" leaf.model
fails "gbt: categories_nodes naming a leaf" "leaf.model: tree 0: node 1 is a leaf but has a set of categories" \
    gbpredict -q --header "$work/p.csv" "$work/leaf.model" "$work/o.txt"
# a short list (older gbt files after continued training on wider data): the rest numeric, so shop's split contradicts it
edit '"feature_types": \["q", "c"\]' '"feature_types": ["q"]' "$work/a.model" short.model
fails "gbt: one feature type for two features, the second split categorically" \
    'short.model: tree 0: node 0 is a categorical split on feature 1 \(shop\), which the model.s feature_types do not declare categorical' \
    gbpredict -q --header "$work/p.csv" "$work/short.model" "$work/o.txt"
edit '"feature_types": \["q", "c"\]' '"feature_types": ["q", "c", "q"]' "$work/a.model" long.model
fails "gbt: three feature types for two features" 'long.model:[0-9]+: "feature_types" has more types than features' \
    gbpredict -q --header "$work/p.csv" "$work/long.model" "$work/o.txt"
edit '"feature_types": \["q", "c"\]' '"feature_types": ["q", "q"]' "$work/a.model" qq.model
fails "gbt: a categorical split on a feature typed q" \
    'qq.model: tree 0: node 0 is a categorical split on feature 1 \(shop\), which the model.s feature_types do not declare categorical' \
    gbpredict -q --header "$work/p.csv" "$work/qq.model" "$work/o.txt"
edit '"feature_types": \["q", "c"\]' '"feature_types": ["c", "c"]' "$work/a.model" cc.model
fails "gbt: a numeric split on a feature typed c" \
    'cc.model: tree 0: node 2 is a numeric split \(< 2.5\) on feature 0 \(x\), which the model.s feature_types declare categorical' \
    gbpredict -q --header "$work/p.csv" "$work/cc.model" "$work/o.txt"
# no types at all: the splits say which features are categorical (XGBoost's C API writes
# categorical models so, and XGBoost loads them): it loads and predicts as the typed model
grep -v '"feature_types"' "$work/a.model" > "$work/untyped.model"
check "gbt: categorical splits without feature_types load" \
    gbpredict -q --header "$work/p.csv" "$work/untyped.model" "$work/pu.txt"
check "and predict as the typed model" cmp "$work/p.txt" "$work/pu.txt"
sed 's/"categories_sizes": \[4\]/"categories_sizes": [0]/; s/"categories": \[0,1,2,4\]/"categories": []/' \
    "$work/a.model" > "$work/empty.model"
fails "gbt: an empty set of categories" "empty.model: tree 0: node 0 is a categorical split with no categories" \
    gbpredict -q --header "$work/p.csv" "$work/empty.model" "$work/o.txt"
edit '"num_feature": 2,' '"num_feature": 2, "best_iteration": 3,' "$work/a.model" best.model
fails "gbt: an early stop past the rounds" "best.model: best_iteration 3 is not a round of the model \(0 to 2\)" \
    gbmodel info "$work/best.model"

# XGBoost's JSON (one line: each edit changes tree 0)
edit '"categories_nodes":\[0\],"categories_segments":\[0\],"categories_sizes":\[4\]' \
    '"categories_nodes":[0,1],"categories_segments":[0,0],"categories_sizes":[4,1]' "$work/x.json" xleaf.json
# a leaf's set is one XGBoost's pruner leaves where it removed a split (XGBoost ignores it)
check "XGBoost: a leaf keeping a set loads" gbpredict -q --header "$work/p.csv" "$work/xleaf.json" "$work/pl.txt"
check "and predicts as before" cmp "$work/px.txt" "$work/pl.txt"
edit '"categories_nodes":\[0\]' '"categories_nodes":[1]' "$work/x.json" xmoved.json
fails "XGBoost: a split's set moved to a leaf" "xmoved.json:1: XGBoost model: a categorical split without categories" \
    gbpredict -q --header "$work/p.csv" "$work/xmoved.json" "$work/o.txt"
edit '"categories_nodes":\[0\],"categories_segments":\[0\],"categories_sizes":\[4\]' \
    '"categories_nodes":[0,2],"categories_segments":[0,0],"categories_sizes":[4,1]' "$work/x.json" xnum2.json
fails "XGBoost: categories_nodes naming a numeric split" "xnum2.json:1: XGBoost model: categories_nodes names node 2, which is neither a categorical split" \
    gbpredict -q --header "$work/p.csv" "$work/xnum2.json" "$work/o.txt"
edit '"feature_types":\["q","c"\]' '"feature_types":["q","q"]' "$work/x.json" xqq.json
fails "XGBoost: a categorical split on a feature typed q" "xqq.json: tree 0: node 0 is a categorical split on feature 1 \(shop\)" \
    gbpredict -q --header "$work/p.csv" "$work/xqq.json" "$work/o.txt"
edit '"feature_types":\["q","c"\]' '"feature_types":["c","c"]' "$work/x.json" xcc.json
fails "XGBoost: a numeric split on a feature typed c" "xcc.json: tree 0: node 2 is a numeric split \(< 2.5\) on feature 0 \(x\)" \
    gbpredict -q --header "$work/p.csv" "$work/xcc.json" "$work/o.txt"
edit '"feature_types":\["q","c"\]' '"feature_types":["q","z"]' "$work/x.json" xz.json
fails "XGBoost: a feature type XGBoost does not know" "xz.json:1: XGBoost model: a feature type is not one of q, c, int, float and i" \
    gbpredict -q --header "$work/p.csv" "$work/xz.json" "$work/o.txt"
edit '"id":1,' '"id":2,' "$work/x.json" xid.json
fails "XGBoost: a tree's id out of place" 'xid.json:1: XGBoost model: a tree.s "id" is not its place' \
    gbpredict -q --header "$work/p.csv" "$work/xid.json" "$work/o.txt"
edit '"num_trees":"3"' '"num_trees":"2"' "$work/x.json" xnum.json
fails "XGBoost: num_trees that is not the number of trees" "xnum.json:1: XGBoost model: num_trees is not the number of trees" \
    gbpredict -q --header "$work/p.csv" "$work/xnum.json" "$work/o.txt"
edit '"iteration_indptr":\[0,1,2,3\]' '"iteration_indptr":[0,2,2,3]' "$work/x.json" xptr.json
fails "XGBoost: iteration_indptr that is not one tree a round" "xptr.json:1: XGBoost model: iteration_indptr is not num_parallel_tree trees per output and round" \
    gbpredict -q --header "$work/p.csv" "$work/xptr.json" "$work/o.txt"
edit '"num_target":"1"' '"num_target":"2"' "$work/x.json" xtarget.json
fails "XGBoost: two targets (a multi-target model) but three trees, not one per target and round" \
    "xtarget.json:1: XGBoost model: the trees do not come num_parallel_tree per output and round" \
    gbpredict -q --header "$work/p.csv" "$work/xtarget.json" "$work/o.txt"
edit '"num_class":"0"' '"num_class":"-1"' "$work/x.json" xclass.json
fails "XGBoost: num_class -1 (it was saved as a gbt model that gbt refused)" "xclass.json:1: XGBoost model: num_class does not fit the objective" \
    gbpredict -q --header "$work/p.csv" "$work/xclass.json" "$work/o.txt"
rm -rf "$work"
done_testing
