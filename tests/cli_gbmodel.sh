#!/bin/sh
# cli_gbmodel.sh - gbmodel (info, importance, dump, slice, convert), gbtrain
# --model_in and --save_period, feature names from CSV headers through
# gbtrain and gbpredict; bad input gives a clear message and exit 1.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
tr=$data/breast_cancer.train.csv

# two trees over a, b, c: importance and dumps worked out by hand (tests/test_explain.c)
cat > hand.model <<'MODEL'
{"format": "gbt-model", "format_version": 1, "gbt_version": "0.1.0",
 "objective": "reg:squarederror", "num_class": 0, "num_feature": 3,
 "feature_names": ["a", "b", "c"], "base_margin": [0.5], "training": {"max_depth": "2"},
 "trees": [
{"class": 0, "num_nodes": 5, "left": [1,3,-1,-1,-1], "right": [2,4,-1,-1,-1],
 "feature": [0,2,-1,-1,-1], "threshold": [1.5,0.25,0,0,0], "default_left": [1,0,0,0,0],
 "value": [0.1,0.05,0.3,-0.1,0.2], "gain": [10,4,0,0,0], "cover": [8,5,3,2,3]},
{"class": 0, "num_nodes": 3, "left": [1,-1,-1], "right": [2,-1,-1],
 "feature": [0,-1,-1], "threshold": [2.5,0,0], "default_left": [0,0,0],
 "value": [0,-0.2,0.1], "gain": [6,0,0], "cover": [8,4,4]}]}
MODEL

"$gbmodel" --help > help.txt
check "--help lists every command and option with its default" \
    sh -c 'for w in "gbmodel info" "gbmodel importance" "gbmodel dump" "gbmodel slice" "--type=weight|gain|cover|total_gain|total_cover" \
               "(default gain)" "--format=text|json|dot" "(default text)" "--tree=N" "(default -1" "--with_stats" "(default off)" \
               "--rounds=A:B" "--force" "--quiet" "--version"; do grep -qF -- "$w" help.txt || exit 1; done'
check "--help lists convert and its --to" sh -c 'grep -qF "gbmodel convert --to=FORMAT" help.txt && grep -qF -- "--to=xgboost|gbt" help.txt'
"$gbmodel" --version > version.txt
check "--version prints the version and build information" grep -q '"cuda": {"compiled"' version.txt

"$gbmodel" info hand.model > info.txt
check "info: objective, intercept, rounds, trees, leaves, depth, names, parameters" \
    sh -c 'grep -qx "objective: reg:squarederror" info.txt && grep -qxF "base_score: [0.5]" info.txt && grep -qx "rounds: 2" info.txt && grep -qx "trees: 2" info.txt &&
           grep -qx "leaves: 5" info.txt && grep -qx "max_depth_reached: 2" info.txt &&
           grep -qx "feature_names: a, b, c" info.txt && grep -qx "  max_depth = 2" info.txt && grep -qx "best_iteration: none" info.txt && grep -qx "num_target: 1" info.txt'

"$gbmodel" importance hand.model > imp.txt
printf 'a\t8\nc\t4\n' > want.txt
check "importance (gain by default): the average gain per split, used features only, most important first" cmp -s imp.txt want.txt
"$gbmodel" importance --type=weight hand.model > imp.txt
printf 'a\t2\nc\t1\n' > want.txt
check "importance --type=weight: splits per feature" cmp -s imp.txt want.txt
"$gbmodel" importance --type=total_cover hand.model > imp.txt
printf 'a\t16\nc\t5\n' > want.txt
check "importance --type=total_cover: summed covers" cmp -s imp.txt want.txt

"$gbmodel" dump --with_stats hand.model > dump.txt
printf 'booster[0]:\n0:[a<1.5] yes=1,no=2,missing=1,gain=10,cover=8\n\t1:[c<0.25] yes=3,no=4,missing=4,gain=4,cover=5\n\t\t3:leaf=-0.1,cover=2\n\t\t4:leaf=0.2,cover=3\n\t2:leaf=0.3,cover=3\nbooster[1]:\n0:[a<2.5] yes=1,no=2,missing=2,gain=6,cover=8\n\t1:leaf=-0.2,cover=4\n\t2:leaf=0.1,cover=4\n' > want.txt
check "dump --with_stats: XGBoost's text dump with names, gains and covers" cmp -s dump.txt want.txt
"$gbmodel" dump --format=json --tree=1 hand.model tree1.json
check "dump --format=json --tree=1 OUT: one tree, nested, to the file" \
    sh -c 'grep -q "\"split\": \"a\", \"split_condition\": 2.5, \"yes\": 1, \"no\": 2, \"missing\": 2, \"children\"" tree1.json &&
           test "$(grep -c nodeid tree1.json)" -eq 3'
"$gbmodel" dump --format=dot hand.model trees.dot
check "dump --format=dot: a digraph with a cluster per tree" \
    sh -c 'head -1 trees.dot | grep -qx "digraph gbt {" && grep -q "subgraph cluster_1" trees.dot && grep -q "t0n0 -> t0n1 \[label=\"yes, missing\"" trees.dot'
if command -v dot >/dev/null 2>&1; then
    check "(and Graphviz reads it)" dot -Tsvg -o trees.svg trees.dot
fi
fails "dump --tree out of range" "--tree: tree 2 does not exist: the model has 2 trees" "$gbmodel" dump --tree=2 hand.model out.txt
check "(and no output file is left)" test ! -e out.txt
fails "dump --tree not a number" "--tree expects an integer in \[-1, 2147483647\], got 'x'" "$gbmodel" dump --tree=x hand.model
fails "dump --format unknown" "--format expects text, json or dot, got 'svg'" "$gbmodel" dump --format=svg hand.model
echo "precious" > notes.txt
fails "dump over a file it did not write is refused" "notes.txt" "$gbmodel" dump hand.model notes.txt
check "(and the file is kept)" grep -qx precious notes.txt
"$gbmodel" dump --force hand.model notes.txt
check "--force replaces it" grep -q "^booster\[0\]:" notes.txt

fails "no command" "no command given: info, importance, dump, slice or convert" "$gbmodel"
fails "an unknown command" "unknown command 'merge': expected info, importance, dump, slice or convert" "$gbmodel" merge hand.model out.json
fails "convert without --to" "convert needs --to=xgboost or --to=gbt, got nothing" "$gbmodel" convert hand.model out.json
fails "convert --to=onnx" "convert needs --to=xgboost or --to=gbt, got onnx" "$gbmodel" convert --to=onnx hand.model out.json
check "(and no output file is left)" test ! -e out.json
"$gbmodel" -q convert --to=xgboost hand.model hand.xgb.json
check "convert --to=xgboost writes XGBoost's JSON (a learner object)" grep -q '^{"learner":{' hand.xgb.json
check "and keeps the feature names" grep -q '"feature_names":\["a","b","c"\]' hand.xgb.json
"$gbmodel" -q convert --to=gbt hand.xgb.json hand.back.model
printf '1,0.2,3\n2,0.3,NA\n3,0.1,1\n0.5,0.25,0\n' > abc.csv
"$gbpredict" -q --margin abc.csv hand.model a.txt
"$gbpredict" -q --margin abc.csv hand.back.model b.txt
check "converted there and back, the model predicts the same" cmp -s a.txt b.txt
"$gbmodel" info hand.back.model > back-info.txt
check "and has the names back" grep -qx "feature_names: a, b, c" back-info.txt
check "info lists the feature types (q when the data gave none)" grep -qx "feature_types: q, q, q" back-info.txt
# XGBoost's spellings of numeric types are kept, through its format and back (issue 33)
sed 's/"feature_names": \["a", "b", "c"\],/&\n "feature_types": ["int", "float", "i"],/' hand.model > typed.model
"$gbmodel" -q convert --to=xgboost typed.model typed.xgb.json
"$gbmodel" -q convert --to=gbt typed.xgb.json typed.back.model
check "XGBoost's feature types int, float, i are kept through its format and back" \
    sh -c 'grep -q "\"feature_types\":\[\"int\",\"float\",\"i\"\]" typed.xgb.json &&
           "$0" info typed.back.model | grep -qx "feature_types: int, float, i"' "$builddir/gbmodel"
"$gbmodel" -q convert --to=xgboost hand.model hand.xgb.json
check "convert may replace its own earlier output" test -s hand.xgb.json
"$gbmodel" -q convert --to=xgboost hand.model hand.ubj
printf '{L\000\000\000\000\000\000\000\007learner' > ubj-head.bin
head -c 17 hand.ubj > hand-head.bin
check "convert to a .ubj name writes XGBoost's UBJSON ('{', then the key learner with an int64 length)" \
    cmp -s ubj-head.bin hand-head.bin
"$gbpredict" -q --margin abc.csv hand.ubj c.txt
check "gbpredict reads the .ubj and predicts as the model" cmp -s a.txt c.txt
"$gbmodel" -q convert --to=xgboost hand.ubj hand2.ubj
"$gbmodel" -q convert --to=xgboost hand2.ubj hand3.ubj
check "a .ubj read and written again is the same bytes, and convert may replace its own .ubj" \
    sh -c 'cmp -s hand2.ubj hand3.ubj && "$0" -q convert --to=xgboost hand2.ubj hand3.ubj' "$builddir/gbmodel"
fails "convert --to=gbt to a .ubj name" "hand.gbt.ubj: a .ubj file holds an XGBoost model in UBJSON" \
    "$gbmodel" convert --to=gbt hand.model hand.gbt.ubj
fails "convert over a file it did not write is refused" "notes.txt" "$gbmodel" convert --to=gbt hand.model notes.txt
fails "no model file" "gbmodel info needs a MODEL_FILE" "$gbmodel" info
fails "a missing model file is named" "loading the model: cannot open 'no-such.model'" "$gbmodel" info no-such.model
fails "a data file given as the model says what it is" "breast_cancer.train.csv" "$gbmodel" importance "$tr"
fails "an option of another command" "gbmodel info takes no option '--type'" "$gbmodel" info --type=gain hand.model
fails "an unknown importance type" "unknown importance type 'split'" "$gbmodel" importance --type=split hand.model
fails "one file too many" "'extra' is one file argument too many" "$gbmodel" importance hand.model out.txt extra

# slicing and continued training: the same bytes as the uninterrupted training
p="-q --objective=binary:logistic --max_depth=3 --subsample=0.8 --colsample_bynode=0.7 --seed=4"
"$gbtrain" $p --num_round=6 "$tr" full.model
"$gbtrain" $p --num_round=2 "$tr" two.model
"$gbtrain" $p --num_round=4 --model_in=two.model "$tr" cont.model
check "gbtrain --model_in: 2 rounds, then 4 more = 6 rounds, byte for byte" cmp -s cont.model full.model
"$gbtrain" $p --num_round=2 "$tr" two.ubj
"$gbmodel" -q convert --to=xgboost two.model two.from.ubj
check "gbtrain to a .ubj name writes XGBoost's UBJSON, as convert does" cmp -s two.ubj two.from.ubj
"$gbmodel" -q slice --rounds=0:2 full.model first2.model
check "slice --rounds=0:2 of the 6 rounds = the 2-round training" cmp -s first2.model two.model
"$gbmodel" -q slice --rounds=2: full.model last4.model
check "slice --rounds=2: keeps 4 rounds" sh -c '"$0" info last4.model | grep -qx "rounds: 4"' "$builddir/gbmodel"
"$gbtrain" $p --num_round=4 --model_in=first2.model "$tr" cont2.model
check "the slice trained 4 more rounds = the 6 rounds" cmp -s cont2.model full.model
"$gbtrain" $p --num_round=6 --save_period=4 "$tr" saved.model
check "--save_period=4: the model of 6 rounds saved at 4 and 6 is the one of 6" cmp -s saved.model full.model
fails "slice --rounds=5:3" "--rounds expects A:B or A:B:S with 0 <= A < B <= 6 \(the model's rounds\) and S >= 1, got '5:3'" \
    "$gbmodel" slice --rounds=5:3 full.model out.model
"$gbmodel" -q slice --rounds=1:6:2 full.model steps.model
check "slice --rounds=1:6:2 keeps rounds 1, 3, 5 (their dumps)" sh -c '"$0" dump steps.model > s.txt && "$0" dump full.model | awk "/^booster\[/ { keep = (\$0 ~ /^booster\[[135]\]/) } keep" | sed "s/booster\[[135]\]/B/" > w.txt && sed "s/booster\[[012]\]/B/" s.txt | cmp -s - w.txt' "$builddir/gbmodel"
fails "slice --rounds with a step of 0" "got '0:6:0'" "$gbmodel" slice --rounds=0:6:0 full.model out.model
fails "slice --rounds past the end" "got '0:7'" "$gbmodel" slice --rounds=0:7 full.model out.model
fails "slice --rounds not a range" "got '3'" "$gbmodel" slice --rounds=3 full.model out.model
fails "slice without --rounds" "slice needs --rounds=A:B" "$gbmodel" slice full.model out.model
fails "slice without OUTPUT_FILE" "slice needs MODEL_FILE and OUTPUT_FILE" "$gbmodel" slice --rounds=0:1 full.model
fails "slice over its own input" "out.model|full.model" "$gbmodel" slice --rounds=0:1 full.model full.model
check "(no output file is left)" test ! -e out.model
fails "gbtrain --model_in of a missing file" "reading the model to continue \(--model_in\): cannot open 'nope.model'" \
    "$gbtrain" -q --model_in=nope.model "$tr" x.model
fails "gbtrain --model_in with another objective" "objective" \
    "$gbtrain" -q --model_in=two.model --objective=reg:squarederror "$tr" x.model

# feature names from a CSV header, kept in the model, checked in prediction
printf 'label,radius,texture,perimeter\n1,10,2,3\n0,20,5,6\n1,12,1,2\n0,25,7,9\n1,11,2,4\n0,22,6,8\n' > named.csv
"$gbtrain" -q --header --objective=binary:logistic --num_round=2 --min_child_weight=0 named.csv named.model
check "gbtrain --header: the header's names are kept in the model" \
    sh -c '"$0" info named.model | grep -qx "feature_names: radius, texture, perimeter"' "$builddir/gbmodel"
"$gbpredict" -q --header named.csv named.model same.txt
check "gbpredict --header on data with the model's names" test -s same.txt
sed '1s/texture/colour/' named.csv > renamed.csv
fails "gbpredict on data named otherwise names the first feature that differs" \
    "feature 1 is 'colour' in renamed.csv but 'texture' in the model \(--validate_features=0 turns this check off\)" \
    "$gbpredict" -q --header renamed.csv named.model
"$gbpredict" -q --header --validate_features=0 renamed.csv named.model renamed.txt
check "gbpredict --validate_features=0 predicts anyway, the same" cmp -s renamed.txt same.txt
"$gbmodel" dump named.model > named.txt
check "dumps use the names" grep -q '^0:\[[a-z]*<' named.txt
# Outputs of every command: '-' is standard output; a link's target is replaced, the link stays (issue 26)
"$gbmodel" info hand.model > info.txt
check "info - writes standard output" sh -c '"$0" info hand.model - | cmp -s info.txt -' "$builddir/gbmodel"
check "info MODEL OUTPUT writes the file" sh -c '"$0" info hand.model info2.txt && cmp -s info.txt info2.txt' "$builddir/gbmodel"
"$gbmodel" importance hand.model > imp.txt
check "importance MODEL OUTPUT writes the file" sh -c '"$0" importance hand.model imp2.txt && cmp -s imp.txt imp2.txt' "$builddir/gbmodel"
check "(and replaces its own output without --force)" "$gbmodel" importance hand.model imp2.txt
echo "my notes" > notes.txt
fails "importance does not replace a file it did not write" "OUTPUT_FILE 'notes.txt' exists and is not a file this tool writes" \
    "$gbmodel" importance hand.model notes.txt
"$gbmodel" dump hand.model > dump.txt
check "dump - writes standard output" sh -c '"$0" dump hand.model - | cmp -s dump.txt -' "$builddir/gbmodel"
check "slice - writes the model to standard output" sh -c '"$0" slice -q --rounds=0:1 hand.model - > slice.model' "$builddir/gbmodel"
check "(which loads: one round)" sh -c '"$0" info slice.model | grep -qx "rounds: 1"' "$builddir/gbmodel"
check "convert --to=xgboost - writes standard output" \
    sh -c '"$0" convert -q --to=xgboost hand.model - > conv.json && grep -q "^{\"learner\":{" conv.json' "$builddir/gbmodel"
check "(and no file named '-')" test ! -e ./-
cp hand.model target.model
ln -s target.model via.link
check "convert into a link to a model" "$gbmodel" convert -q --to=gbt hand.model via.link
check "(the link stays a link; its target is the model)" sh -c 'test -L via.link && test -f target.model && "$0" info target.model' "$builddir/gbmodel"
ln -s notes.txt notes.link
fails "slice into a link to a file it did not write is refused" "OUTPUT_FILE 'notes.link' exists and is not a file this tool writes" \
    "$gbmodel" slice -q --rounds=0:1 hand.model notes.link
check "(notes.txt unchanged)" grep -qx "my notes" notes.txt
ln -s gone/m.json gone.link
fails "convert into a dangling link is refused" "cannot write 'gone.link': it is a symbolic link to .*gone/m.json', which does not exist" \
    "$gbmodel" convert -q --to=gbt hand.model gone.link
mkfifo out.fifo
timeout 20 cat out.fifo > from_fifo.txt &
reader=$!
check "dump into a FIFO" "$gbmodel" dump hand.model out.fifo
wait $reader
check "(the reader got the dump; the FIFO stays)" sh -c 'cmp -s dump.txt from_fifo.txt && test -p out.fifo'
# a model of the largest legal num_feature: info gives the count, not 16.7 million names (issue 26)
sed 's/"num_feature": 3,/"num_feature": 16777215,/' hand.model > wide.model
"$gbmodel" info wide.model > wide.txt
check "info on a model of 16777215 features prints a count, not a list" \
    sh -c 'grep -qx "num_feature: 16777215" wide.txt && grep -qx "feature_names: not listed (more than 1000 features)" wide.txt && test "$(wc -c < wide.txt)" -lt 2000'
sed 's/"num_feature": 3,/"num_feature": 16777216,/' hand.model > wider.model
fails "num_feature 16777216 is refused, naming the file and byte" "wider.model:2: integer out of range: 16777216 \(byte [0-9]+\)" \
    "$gbmodel" info wider.model
# a model of 0 rounds: every output works, and is empty (issue 38, finding 6:
# "out of memory writing the dump")
"$builddir/gbtrain" -q --num_round=0 "$tr" zero.model
check "info on a 0-round model: exit 0, rounds 0, trees 0" \
    sh -c '"$0" info zero.model > zero.txt && grep -qx "rounds: 0" zero.txt && grep -qx "trees: 0" zero.txt' "$builddir/gbmodel"
check "its text dump is empty" sh -c '"$0" dump zero.model > zero.dump && test ! -s zero.dump' "$builddir/gbmodel"
check "its JSON dump is an empty array" \
    sh -c '"$0" dump --format=json zero.model | tr -d " \n" | grep -qx "\[\]"' "$builddir/gbmodel"
check "its DOT dump a graph of no edges" \
    sh -c '"$0" dump --format=dot --with_stats zero.model > zero.dot && grep -q "^digraph" zero.dot && ! grep -q -- "->" zero.dot' "$builddir/gbmodel"
check "its importance is empty (no feature is split on)" \
    sh -c '"$0" importance --type=total_gain zero.model > zero.imp && test ! -s zero.imp' "$builddir/gbmodel"
done_testing
