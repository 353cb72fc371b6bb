#!/bin/sh
# cli_catmem.sh - a model's category sets take memory in proportion to
# the categories they hold, not to the largest one (issue 38): a 1 MB
# XGBoost JSON model of 500 trees whose sets hold 16777215, its gbt-format
# copy, and a model gbt trains on category codes near 2^24 load, describe
# and predict in under 64 MB (they took 7 GB, over 2 GB and 540 MB), and
# predict what their trees, walked by hand, say.
#
# Memory is the tool's peak resident set (getrusage of the finished child,
# through Python's resource module): what the process really used, whatever
# address space its threads' stacks and malloc arenas reserve (an RLIMIT_AS
# cap counts those, and so depends on the core count).  Under valgrind or a
# sanitizer the resident set is the tool's own, so those checks skip there.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

# The hostile model: 500 trees of 15 nodes, the 7 splits categorical on
# f0..f3, each set {i, i + 1, i + 2, 100 + t, 1000 + t, 16777215} (node i, tree t); leaf
# j (7..14) of tree t holds (j - 10) / 1000 + t / 1e6; base_score 0.5.
awk 'BEGIN {
  T = 500
  printf "{\"learner\":{\"attributes\":{},\"feature_names\":[],\"feature_types\":[\"c\",\"c\",\"c\",\"c\"],"
  printf "\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\"1\",\"num_trees\":\"%d\"},\"iteration_indptr\":[", T
  for (t = 0; t <= T; t++) printf "%s%d", (t ? "," : ""), t
  printf "],\"tree_info\":["
  for (t = 0; t < T; t++) printf "%s0", (t ? "," : "")
  printf "],\"trees\":["
  for (t = 0; t < T; t++) {
    printf "%s{\"base_weights\":[", (t ? "," : "")
    for (i = 0; i < 15; i++) printf "%s%.14E", (i ? "," : ""), (i - 7) / 100
    printf "],\"categories\":["
    for (i = 0; i < 7; i++) printf "%s%d,%d,%d,%d,%d,16777215", (i ? "," : ""), i, i + 1, i + 2, 100 + t, 1000 + t
    printf "],\"categories_nodes\":[0,1,2,3,4,5,6],\"categories_segments\":[0,6,12,18,24,30,36],"
    printf "\"categories_sizes\":[6,6,6,6,6,6,6],\"default_left\":[0,1,0,1,0,1,0,0,0,0,0,0,0,0,0],\"id\":%d,", t
    printf "\"left_children\":[1,3,5,7,9,11,13,-1,-1,-1,-1,-1,-1,-1,-1],\"loss_changes\":["
    for (i = 0; i < 15; i++) printf "%s%.14E", (i ? "," : ""), (i < 7 ? 1.5 + i : 0)
    printf "],\"parents\":[2147483647,0,0,1,1,2,2,3,3,4,4,5,5,6,6],"
    printf "\"right_children\":[2,4,6,8,10,12,14,-1,-1,-1,-1,-1,-1,-1,-1],\"split_conditions\":["
    for (i = 0; i < 15; i++) printf "%s%.14E", (i ? "," : ""), (i < 7 ? 0 : (i - 10) / 1000 + t / 1e6)
    printf "],\"split_indices\":[0,1,2,3,0,1,2,0,0,0,0,0,0,0,0],\"split_type\":[1,1,1,1,1,1,1,0,0,0,0,0,0,0,0],"
    printf "\"sum_hessian\":["
    for (i = 0; i < 15; i++) printf "%s%.14E", (i ? "," : ""), 100 / (1 + i)
    printf "],\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"4\",\"num_nodes\":\"15\",\"size_leaf_vector\":\"1\"}}"
  }
  printf "]},\"name\":\"gbtree\"},\"learner_model_param\":{\"base_score\":\"5E-1\",\"boost_from_average\":\"1\","
  printf "\"num_class\":\"0\",\"num_feature\":\"4\",\"num_target\":\"1\"},"
  printf "\"objective\":{\"name\":\"reg:squarederror\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},\"version\":[3,2,0]}\n"
}' > hostile.json
size=$(wc -c < hostile.json)
check "the hostile XGBoost model is about 1 MB ($size bytes)" test "$size" -gt 1000000 -a "$size" -lt 1100000

# Rows: every code in the sets (16777215 goes right everywhere: leaf 14),
# codes in no set (left everywhere: leaf 7), 2^24 and beyond (left), and
# missing values (f1 and f3 default left, f0 and f2 right).
printf '16777215,16777215,16777215,16777215\n16777214,50,99,16777213\n16777216,3e9,-1,1e30\n,,,\n' > rows.csv
# Walked by hand: row 1 takes the rightmost path (0, 2, 6, 14), row 2 and
# 3 the leftmost (0, 1, 3, 7), row 4 (all missing) right at node 0 (f0),
# right at 2 (f2), right at 6 (f2): leaf 14 too.
awk 'BEGIN { for (t = 0; t < 500; t++) { r += 4 / 1000 + t / 1e6; l += -3 / 1000 + t / 1e6 }
             printf "%.6f\n%.6f\n%.6f\n%.6f\n", 0.5 + r, 0.5 + l, 0.5 + l, 0.5 + r }' > want.txt

# peak KB COMMAND...: runs COMMAND, prints its peak resident set in kB (empty when it failed)
peak() {
    python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
sys.exit(rc) if rc else print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
limit_kb=65536
measure=yes
case "${GBT_BUILD_CFLAGS:-}${GBT_TEST_WRAPPER:-}" in
*sanitize* | *valgrind*) measure="a sanitizer's or valgrind's resident set is not the tool's" ;;
esac
command -v python3 > /dev/null 2>&1 || measure="no python3 to read the tools' peak memory (getrusage)"
# under_64mb NAME COMMAND...: the command succeeds in under 64 MB of peak resident memory
under_64mb() {
    name=$1
    shift
    if [ "$measure" != yes ]; then
        tap_n=$((tap_n + 1))
        echo "ok $tap_n # SKIP $name: $measure"
        return
    fi
    kb=$(peak "$@")
    check "$name in under 64 MB (peak resident ${kb:-?} kB)" test -n "$kb" -a "${kb:-0}" -lt $limit_kb
}

under_64mb "gbmodel info on the 1 MB XGBoost model" "$builddir/gbmodel" info hostile.json
under_64mb "gbpredict with it" "$builddir/gbpredict" -q rows.csv hostile.json x.pred
under_64mb "gbmodel convert to gbt's format" "$builddir/gbmodel" convert --to=gbt hostile.json hostile.gbt
gbpredict -q rows.csv hostile.json x.pred
awk '{ printf "%.6f\n", $1 }' x.pred > x.rounded
check "its predictions are the walk by hand's" cmp x.rounded want.txt
gbmodel convert --to=gbt hostile.json hostile.gbt
size=$(wc -c < hostile.gbt)
under_64mb "gbmodel info on its gbt-format copy ($size bytes)" "$builddir/gbmodel" info hostile.gbt
under_64mb "gbpredict with the copy" "$builddir/gbpredict" -q rows.csv hostile.gbt g.pred
gbpredict -q rows.csv hostile.gbt g.pred
check "the copy predicts the same" cmp x.pred g.pred

# A model gbt trains itself on codes near 2^24: 400 rows, 8 categories
# 16777208..16777215 whose effects differ, 20 rounds.
awk 'BEGIN { for (i = 0; i < 400; i++) { c = (i * 7) % 8; print (c % 3) + (i % 5) * 0.01 "," 16777208 + c "," (i % 4) } }' > near.csv
under_64mb "gbtrain on category codes near 2^24" "$builddir/gbtrain" -q --num_round=20 --max_cat_to_onehot=1 \
    --categorical_feature=0 near.csv near.model
gbtrain -q --num_round=20 --max_cat_to_onehot=1 --categorical_feature=0 near.csv near.model
check "its model holds sets of codes near 2^24" grep -q 16777215 near.model
under_64mb "gbpredict with that model" "$builddir/gbpredict" -q near.csv near.model near.pred
under_64mb "gbmodel info on it" "$builddir/gbmodel" info near.model
gbpredict -q near.csv near.model near.pred
# the 8 categories are learnt: rows of one category predict alike, and the
# categories 3 apart (same label) alike too
awk -F, 'NR == FNR { p[FNR] = $1; next } { k = $2 - 16777208; s[k] += p[FNR]; n[k]++ }
  END { for (k = 0; k < 8; k++) m[k] = s[k] / n[k]; bad = 0
        for (k = 0; k < 8; k++) if ((m[k] - (k % 3) - 0.02)^2 > 0.01) bad = 1
        exit bad }' near.pred near.csv
check "and predicts each category's mean label" test $? -eq 0

# The load-time bound (docs/reliability.md): at most 64 bytes per byte of
# model file plus 16 MB.  Its worst known shape: numeric trees that are
# chains of depth 10 (21 nodes, laid out complete for prediction in 1,024
# slots each); 2000 of them, as XGBoost JSON and as gbt's copy.  Only where
# memory is measured: the rest is a memory check's set-up.
if [ "$measure" != yes ]; then
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP gbpredict with 2000 depth-10 chains within 64 bytes a byte plus 16 MB: $measure"
    done_testing
    exit 0
fi
awk 'BEGIN {
  T = 2000; n = 21
  printf "{\"learner\":{\"attributes\":{},\"feature_names\":[],\"feature_types\":[],\"gradient_booster\":{\"model\":{"
  printf "\"gbtree_model_param\":{\"num_parallel_tree\":\"1\",\"num_trees\":\"%d\"},\"iteration_indptr\":[", T
  for (t = 0; t <= T; t++) printf "%s%d", (t ? "," : ""), t
  printf "],\"tree_info\":["
  for (t = 0; t < T; t++) printf "%s0", (t ? "," : "")
  printf "],\"trees\":["
  for (t = 0; t < T; t++) {
    printf "%s{\"categories\":[],\"categories_nodes\":[],\"categories_segments\":[],\"categories_sizes\":[],\"id\":%d", (t ? "," : ""), t
    printf ",\"left_children\":["
    for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), (i % 2 == 0 && i < n - 1 ? i + 1 : -1)
    printf "],\"right_children\":["
    for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), (i % 2 == 0 && i < n - 1 ? i + 2 : -1)
    printf "]"
    split("base_weights default_left loss_changes split_indices split_type", zero, " ")
    for (k = 1; k <= 5; k++) { printf ",\"%s\":[", zero[k]; for (i = 0; i < n; i++) printf "%s0", (i ? "," : ""); printf "]" }
    printf ",\"split_conditions\":["
    for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), i % 3
    printf "],\"sum_hessian\":["
    for (i = 0; i < n; i++) printf "%s1", (i ? "," : "")
    printf "],\"parents\":[],\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"1\",\"num_nodes\":\"%d\",\"size_leaf_vector\":\"1\"}}", n
  }
  printf "]},\"name\":\"gbtree\"},\"learner_model_param\":{\"base_score\":\"5E-1\",\"boost_from_average\":\"1\",\"num_class\":\"0\","
  printf "\"num_feature\":\"1\",\"num_target\":\"1\"},\"objective\":{\"name\":\"reg:squarederror\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},"
  printf "\"version\":[3,2,0]}\n"
}' > chain.json
gbmodel convert --to=gbt chain.json chain.gbt
printf '0,1\n0,2\n' > chain.csv
for f in chain.json chain.gbt; do
    bytes=$(wc -c < $f)
    bound=$((bytes * 64 / 1024 + 16384))
    kb=$(peak "$builddir/gbpredict" -q chain.csv $f chain.pred)
    check "gbpredict with $f ($bytes bytes of depth-10 chains) within 64 bytes a byte plus 16 MB ($bound kB): ${kb:-?} kB" \
        test -n "$kb" -a "${kb:-0}" -le $bound
done
done_testing
