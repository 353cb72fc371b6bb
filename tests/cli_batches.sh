#!/bin/sh
# cli_batches.sh - issue 34: gbtrain reads training data named with XGBoost's
# cache syntax (PATH#CACHE, PATH?OPTIONS#CACHE, in a --config file too) in
# batches (gbt_dataset_from_file_iter), and the model is the one of the same
# file read whole, byte for byte; a bad line in a later batch gets the whole
# file's message and leaves no model.  The binned rows go to a page file
# under the CACHE prefix, read back by the training and removed at exit
# (a failed training's too); a prefix in a missing folder is refused.  A
# validation file so named is binned with the training data's cuts
# (gbt_dataset_from_file_iter_ref) and its metric lines are those of the
# file read whole; gbpredict predicts such a file batch by batch, writing
# what it writes for the file read whole.  Categorical features
# (--categorical_feature, --feature_types) are read in batches too, with
# the models and metric lines of the files read whole.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
# one thread: these trainings take milliseconds, and idle OpenMP threads spin on a loaded machine
OMP_NUM_THREADS=1
export OMP_NUM_THREADS

tr=$data/breast_cancer.train.csv
# side files are read next to the data: a copy with weights (1 to 3)
cp "$tr" bc.csv
awk '{ print NR % 3 + 1 }' bc.csv >bc.csv.weight
"$gbtrain" --objective=binary:logistic --num_round=4 bc.csv whole.model 2>whole.log
# about 25 lines a batch: 17 batches
"$gbtrain" --objective=binary:logistic --num_round=4 "bc.csv?batch_bytes=5000#dtrain.cache" batches.model \
    2>batches.log
check "CSV with weights in 17 batches: the model of the file read whole" cmp -s whole.model batches.model
grep '^\[' whole.log | cut -f2 >whole.metrics
grep '^\[' batches.log | cut -f2 >batches.metrics
check "the training set evaluated (from the training margins): the same 4 train-logloss lines" \
    sh -c 'test "$(wc -l <whole.metrics)" -eq 4 && cmp -s whole.metrics batches.metrics'
printf 'data = "bc.csv?format=csv&label_column=0&batch_bytes=7000#dtrain.cache" # the cache\nobjective = binary:logistic\nnum_round = 4\nmodel_out = "conf.model"\n' >b.conf
"$gbtrain" -q --config b.conf
check "a --config file's data = \"PATH?OPTIONS#CACHE\": the same model ('#' in quotes is no comment)" \
    cmp -s whole.model conf.model
mkdir pg
"$gbtrain" --objective=binary:logistic --num_round=4 --verbosity=3 "bc.csv?batch_bytes=5000#pg/dtrain" pg.model \
    2>pg.log
check "18 pages of pg/dtrain-gbt-PID-0.pages streamed by the training" grep -aq "18 pages of pg/dtrain-gbt-[0-9]*-0.pages streamed" pg.log
check "... and the model of the file read whole" cmp -s whole.model pg.model
check "the page file is removed at exit" sh -c 'test -z "$(ls pg)"'
fails "a failed training: named, and its page file removed too" "num_class" \
    "$gbtrain" -q --objective=multi:softprob "bc.csv?batch_bytes=5000#pg/dtrain" pg2.model
check "... no page file left" sh -c 'test -z "$(ls pg)"'
fails "a cache prefix in a missing folder: refused, naming the path" \
    "cannot create the page file 'nodir/c-gbt-[0-9]*-0.pages'" "$gbtrain" -q "bc.csv#nodir/c" nodir.model

# validation files in batches, binned with the training data's cuts: the metric lines of the file read whole
te=$data/breast_cancer.test.csv
cp "$te" te.csv
"$gbtrain" --objective=binary:logistic --num_round=4 --eval_train=0 --valid=te.csv bc.csv v.whole 2>v.whole.log
"$gbtrain" --objective=binary:logistic --num_round=4 --eval_train=0 "--valid=te.csv?batch_bytes=3000#dte.cache" \
    "bc.csv?batch_bytes=5000#c" v.batches 2>v.batches.log
grep '^\[' v.whole.log | cut -f2 >v.whole.metrics
grep '^\[' v.batches.log | cut -f2 >v.batches.metrics
check "--valid=PATH?OPTIONS#CACHE in 15 batches: the same 4 te-logloss lines as the file read whole" \
    sh -c 'test "$(grep -c "^te-logloss:" v.whole.metrics)" -eq 4 && cmp -s v.whole.metrics v.batches.metrics'
printf 'data = "bc.csv"\neval[te] = "te.csv?batch_bytes=3000#dtest.cache"\nobjective = binary:logistic\nnum_round = 4\neval_train = 0\nmodel_out = "v.conf"\n' >v.cfg
"$gbtrain" --config v.cfg 2>v.conf.log
grep '^\[' v.conf.log | cut -f2 >v.conf.metrics
check "eval[te] = \"PATH#CACHE\" in a --config file (the training data read whole): the same lines" \
    cmp -s v.whole.metrics v.conf.metrics

# categorical features read in batches: columns 2 and 4 made category numbers (7 and 40 categories)
awk -F, 'BEGIN { OFS = "," } { $3 = int($3) % 7; $5 = NR % 40; print }' bc.csv >cat.csv
awk -F, 'BEGIN { OFS = "," } { $3 = int($3) % 7; $5 = NR % 40; print }' te.csv >cte.csv
cat_opts="--objective=binary:logistic --num_round=4 --eval_train=0 --categorical_feature=1,3"
"$gbtrain" $cat_opts --valid=cte.csv cat.csv cat.whole 2>cat.whole.log
"$gbtrain" $cat_opts "--valid=cte.csv?batch_bytes=3000#d" "cat.csv?batch_bytes=5000#c" cat.batches 2>cat.batches.log
grep '^\[' cat.whole.log | cut -f2 >cat.whole.metrics
grep '^\[' cat.batches.log | cut -f2 >cat.batches.metrics
check "--categorical_feature=1,3 with training and validation files in batches: the model (categorical splits) and cte-logloss lines of the files read whole" \
    sh -c 'grep -q "\"categories_nodes\": \[[0-9]" cat.whole && cmp -s cat.whole cat.batches &&
           test "$(grep -c "^cte-logloss:" cat.whole.metrics)" -eq 4 && cmp -s cat.whole.metrics cat.batches.metrics'
"$gbtrain" -q --objective=binary:logistic --num_round=4 --eval_train=0 \
    --feature_types=q,c,q,c,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q,q "cat.csv?batch_bytes=5000#c" cat.ft
check "--feature_types=q,c,q,c,... in batches: the same model" cmp -s cat.whole cat.ft
awk -F, 'BEGIN { OFS = "," } NR == 300 { $3 = "red" } { print }' cat.csv >catn.csv
fails "a category name in a later batch: refused, naming the line (names are read with the file whole)" \
    "catn.csv:300: value 'red' in column 2 is not a number: this categorical feature holds category numbers" \
    "$gbtrain" -q --categorical_feature=1 "catn.csv?batch_bytes=5000#c" catn.model
check "... and no model written" test ! -e catn.model

# gbpredict DATA_FILE#CACHE: each batch predicted and written in turn, the output of the file read whole
"$gbpredict" -q te.csv whole.model p.whole
"$gbpredict" "te.csv?batch_bytes=2000#c" whole.model p.batches 2>p.log
"$gbpredict" -q --pred_leaf te.csv whole.model l.whole
"$gbpredict" -q --pred_leaf "te.csv?batch_bytes=2000#c" whole.model l.batches
check "gbpredict 'PATH?batch_bytes=2000#c': the predictions and leaf ids of the file read whole, in 15 batches" \
    sh -c 'cmp -s p.whole p.batches && cmp -s l.whole l.batches && grep -q "142 rows predicted in 15 batches" p.log'
fails "gbpredict --metric with #CACHE is refused" "needs every row's prediction at once" \
    "$gbpredict" -q --metric=auc "te.csv#c" whole.model p.metric

# LIBSVM: the width and the guessed index base are the whole file's; the groups from PATH.group
digits=$data/digits.train.csv
awk -F, '{ printf "%s", $1; for (i = 2; i <= NF; i++) if ($i != 0) printf " %d:%s", i - 1, $i; print "" }' \
    "$digits" | head -n 400 >dg.svm
"$gbtrain" -q --objective=multi:softprob --num_class=10 --num_round=1 --max_depth=2 dg.svm dg.whole
"$gbtrain" -q --objective=multi:softprob --num_class=10 --num_round=1 --max_depth=2 \
    "dg.svm?indexing_mode=auto&batch_bytes=10000#c" dg.batches
check "LIBSVM, 10 classes, in 10 batches: the model of the file read whole (one-based, guessed)" \
    cmp -s dg.whole dg.batches
rank=$data/rank.train.libsvm
head -n 1000 "$rank" >rk.svm
sed 's/ qid:[0-9]*//' rk.svm >rkg.svm
awk '{ q = $2; if (q != last && NR > 1) { print n; n = 0 } n++; last = q } END { print n }' rk.svm >rkg.svm.group
"$gbtrain" -q --objective=rank:ndcg --num_round=2 --max_depth=3 --eval_train=0 rk.svm rk.whole
"$gbtrain" -q --objective=rank:ndcg --num_round=2 --max_depth=3 --eval_train=0 \
    "rkg.svm?indexing_mode=auto&batch_bytes=15000#c" rk.batches
check "ranking, qid read whole against PATH.group with batches: the same model" cmp -s rk.whole rk.batches
# qid: queries of about 20 lines go on across batches of about 40 lines (the reader carries the last qid)
"$gbtrain" -q --objective=rank:ndcg --num_round=2 --max_depth=3 --eval_train=0 \
    "rk.svm?indexing_mode=auto&batch_bytes=3500#c" rk.qid
check "ranking, qid read in batches, queries across the batches' boundaries: the model of the file read whole" \
    cmp -s rk.whole rk.qid
sed '500s/ qid:[0-9]*//' rk.svm >rkbad.svm
fails "a line without qid in a later batch: the whole file's message" "rkbad.svm:500: qid is missing" \
    "$gbtrain" -q --objective=rank:ndcg "rkbad.svm?batch_bytes=3500#c" rk.refused

# a bad line in batch 9: the message of the whole file, and no model
sed '200s/^\([^,]*\),/\1,x/' bc.csv >bad.csv
"$gbtrain" -q bad.csv bad.model 2>whole.err
"$gbtrain" -q "bad.csv?batch_bytes=5000#c" bad.model 2>batches.err
check "a bad line in a later batch: the whole file's message (bad.csv:200)" \
    sh -c 'grep -q "bad.csv:200: " batches.err && cmp -s whole.err batches.err'
check "and no model written" test ! -e bad.model
awk 'NR <= 300' bc.csv.weight >short.csv.weight
cp bc.csv short.csv
fails "too few weights: named" "short.csv.weight: 300 weights for more than 300 rows" \
    "$gbtrain" -q "short.csv?batch_bytes=5000#c" short.model
done_testing
