#!/bin/sh
# cli_basic.sh - gbtrain and gbpredict doing their jobs.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

"$gbtrain" --help > help.txt
check "--help lists every parameter with its default and range" \
    sh -c 'grep -q -- "--eta=double" help.txt && grep -q "default 0.3, range \[0, inf), alias learning_rate" help.txt &&
           grep -q -- "--colsample_bynode" help.txt && grep -q -- "--num_round=N" help.txt && grep -q -- "--valid=FILE" help.txt'
"$gbtrain" --version > version.txt
check "--version prints the version and build information" grep -q '"cuda": {"compiled"' version.txt

"$gbtrain" --objective=binary:logistic --num_round=10 --eta=0.1 --valid="$data/breast_cancer.test.csv" \
    --eval_metric=auc "$data/breast_cancer.train.csv" 2> train.err
check "training with defaults exits 0" test $? -eq 0
check "the model goes to the training file's base name + .model" test -s breast_cancer.train.model
check "per-round progress on standard error" sh -c 'grep -q "^\[0\].*breast_cancer.test-auc:0\.[0-9]*.*elapsed.*left" train.err && grep -q "^\[9\]" train.err'
check "a summary line at the end" grep -q "trained 10 rounds" train.err

"$gbpredict" --metric=auc --metric=logloss "$data/breast_cancer.test.csv" breast_cancer.train.model pred.txt 2> pred.err
check "prediction exits 0" test $? -eq 0
check "one line per row (142)" test "$(wc -l < pred.txt)" -eq 142
check "probabilities lie in (0, 1)" awk '$1 <= 0 || $1 >= 1 { exit 1 }' pred.txt
check "--metric prints the score" grep -Eq "^auc	0\.9[0-9]+$" pred.err
"$gbpredict" -q "$data/breast_cancer.test.csv" breast_cancer.train.model > stdout.txt
check "without OUTPUT_FILE predictions go to standard output" cmp -s stdout.txt pred.txt
cut -d, -f2- "$data/breast_cancer.test.csv" > nolabel.csv
"$gbpredict" -q nolabel.csv breast_cancer.train.model nolabel.txt
check "a CSV of the model's 30 features alone predicts the same as with its label first" cmp -s nolabel.txt pred.txt
printf 'label' > header.csv
for i in $(seq 1 30); do printf ',f%d' "$i" >> header.csv; done
echo >> header.csv
cat "$data/breast_cancer.test.csv" >> header.csv
"$gbpredict" -q --header header.csv breast_cancer.train.model header.txt
check "so does one with a header line" cmp -s header.txt pred.txt
"$gbpredict" -q --device=cpu "$data/breast_cancer.test.csv" breast_cancer.train.model cpu.txt
check "gbpredict --device=cpu predicts the same" cmp -s cpu.txt pred.txt
"$gbpredict" -q --margin "$data/breast_cancer.test.csv" breast_cancer.train.model > margin.txt
check "--margin writes raw scores (some negative)" grep -q "^-" margin.txt

"$gbtrain" -q --objective=multi:softprob --num_class=10 --num_round=3 "$data/digits.train.csv" digits.model
"$gbpredict" -q "$data/digits.test.csv" digits.model probs.txt
check "multi:softprob writes 10 tab-separated probabilities per row" \
    awk -F'\t' 'NF != 10 { exit 1 } END { exit NR != 450 }' probs.txt
"$gbtrain" -q --objective=multi:softmax --num_class=10 --num_round=3 "$data/digits.train.csv" digits2.model
"$gbpredict" -q "$data/digits.test.csv" digits2.model classes.txt
check "multi:softmax writes one class number per row" awk '$0 !~ /^[0-9]$/ { exit 1 }' classes.txt

printf 'eta = 0.5   # comment\nmax_depth = 2\nnum_round = 4\n\n# only a comment\n' > train.conf
"$gbtrain" -q --config train.conf --num_round=2 "$data/diabetes.train.csv" a.model
"$gbtrain" -q --eta=0.5 --max-depth 2 --num-round=2 "$data/diabetes.train.csv" b.model
check "--config values apply, the command line wins, '-' equals '_'" cmp -s a.model b.model
"$gbtrain" -q --eta=0.5 --max_depth=2 --num_round=4 "$data/diabetes.train.csv" c.model
check "(and the config's num_round was overridden)" sh -c '! cmp -s a.model c.model'

printf 'objective = "binary:logistic"\nbooster = gbtree\ntree_method = '"'"'hist'"'"'\nn_estimators = 3\n' > quoted.conf
"$gbtrain" -q --config quoted.conf "$data/breast_cancer.train.csv" quoted.model
"$gbtrain" -q --objective=binary:logistic --num_round=3 "$data/breast_cancer.train.csv" plain.model
check "a config file with quoted values, booster=gbtree and n_estimators trains" cmp -s quoted.model plain.model
"$gbtrain" -q --objective=binary:logistic --nrounds=3 "$data/breast_cancer.train.csv" nrounds.model
check "--nrounds is the number of rounds too" cmp -s nrounds.model plain.model
# config lines of any length: a 3000-byte comment ends in text that must
# not be read as a setting, and a 3000-byte setting line is one setting
awk 'BEGIN { s = "# "; for (i = 0; i < 3000; i++) s = s "x"; print s " eta = fast";
             s = "eta ="; for (i = 0; i < 3000; i++) s = s " "; print s "0.5"; print "max_depth = 2" }' > long.conf
"$gbtrain" -q --config long.conf --num_round=2 "$data/diabetes.train.csv" long.model
check "config lines longer than 2048 bytes: the comment stays a comment, the long setting applies" cmp -s long.model b.model

cp "$data/diabetes.train.csv" w.csv
"$gbtrain" -q --num_round=3 w.csv nw.model
awk '{ print (NR % 3) + 0.5 }' w.csv > w.csv.weight
"$gbtrain" -q --num_round=3 w.csv ww.model
check "a .weight side file changes the model" sh -c '! cmp -s nw.model ww.model'

printf '1 1:0.5 3:1\n0 2:1 3:0\n1 1:0.7 2:0.1\n0 1:0.1 3:2\n' > small.libsvm
"$gbtrain" -q --objective=binary:logistic --num_round=2 --min_child_weight=0 small.libsvm small.model
check "a LIBSVM file trains (format guessed)" test -s small.model
"$gbpredict" -q small.libsvm small.model > small.pred
check "and predicts one line per row" test "$(wc -l < small.pred)" -eq 4

# The breast cancer rows as LIBSVM files numbered from 1 and from 0 (zeros left out).
tolibsvm() { awk -F, -v base="$1" '{ printf "%s", $1; for (i = 2; i <= NF; i++) if ($i != 0) printf " %d:%s", i - 2 + base, $i; print "" }' "$2"; }
tolibsvm 1 "$data/breast_cancer.train.csv" > tr1.libsvm
tolibsvm 0 "$data/breast_cancer.test.csv" > te0.libsvm
tolibsvm 1 "$data/breast_cancer.test.csv" > te1.libsvm
"$gbtrain" -q --objective=binary:logistic --num_round=5 tr1.libsvm one.model
check "a model trained on a one-based LIBSVM file has the file's 30 features" grep -q '"num_feature": 30,' one.model
"$gbpredict" -q te1.libsvm one.model te1.pred
"$gbpredict" -q te0.libsvm one.model te0.pred
check "zero-based and one-based LIBSVM test files predict the same" cmp -s te0.pred te1.pred
tr ',' ' ' < "$data/breast_cancer.test.csv" | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " %d:%s", i - 1, ($i == 0 ? "nan" : $i); print "" }' > te1nan.libsvm
"$gbpredict" -q te1nan.libsvm one.model te1nan.pred
check "(and so does the test file written with every feature)" cmp -s te1nan.pred te1.pred

"$gbtrain" -q --num_round=7 --subsample=0.8 --colsample_bytree=0.7 --valid="$data/diabetes.test.csv" \
    "$data/diabetes.train.csv" whole.model
"$gbtrain" --num_round=7 --subsample=0.8 --colsample_bytree=0.7 --valid="$data/diabetes.test.csv" \
    --save_period=3 "$data/diabetes.train.csv" period.model 2> period.err
check "--save_period=3 saves after rounds 3 and 6 and at the end" \
    sh -c 'grep -q "saved 3 rounds to period.model" period.err && grep -q "saved 6 rounds to period.model" period.err && grep -q "saved 7 rounds to period.model" period.err'
check "and trains the same model as one run" cmp -s whole.model period.model
# a pipe can be read only once: the format guess must not eat its first MiB
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%d,%d,%d\n", i % 2, (i * 7) % 100, (i * 13) % 101 }' > big.csv
awk -F, '{ printf "%d 0:%d 1:%d\n", $1, $2, $3 }' big.csv > big.libsvm
"$gbtrain" -q --num_round=1 big.csv file.model
cat big.csv | "$gbtrain" -q --num_round=1 /dev/stdin pipe.model
check "training from a pipe reads all 100000 rows (the same model as from the file)" cmp -s file.model pipe.model
cat big.csv | "$gbpredict" -q /dev/stdin file.model > pipe.pred
check "prediction from a pipe writes all 100000 rows" test "$(wc -l < pipe.pred)" -eq 100000
cat big.libsvm | "$gbpredict" -q /dev/stdin file.model > pipe2.pred
check "a LIBSVM pipe too (format guessed)" cmp -s pipe.pred pipe2.pred
# loading progress: by default only on a terminal, so logs stay clean
"$gbtrain" --num_round=1 --nthread=2 big.csv quietload.model 2> quietload.err
check "no reading progress when standard error is not a terminal" sh -c '! grep -q "reading \| MB in " quietload.err'
check "and --nthread does not change the model" cmp -s file.model quietload.model
"$gbtrain" --num_round=1 --progress=0.000001 big.csv progress.model 2> progress.err
check "--progress=S reports reading progress and a summary" \
    sh -c 'grep -q "^reading big.csv: 100% (1 of 1 MB" progress.err && grep -q "^read big.csv: 100000 rows x 2 columns" progress.err'
cat big.csv | "$gbtrain" --num_round=1 --progress=0.000001 /dev/stdin progress2.model 2> progress2.err
check "from a pipe (size unknown) it reports megabytes read" grep -q "^reading /dev/stdin: 1 MB (" progress2.err
"$gbtrain" -q --num_round=1 --progress=0.000001 big.csv progress3.model 2> progress3.err
check "-q silences it" test ! -s progress3.err

# nthread=4096 under a 2 GB address-space limit: 4096 thread stacks would not
# fit, and libgomp exits when it cannot create a thread; gbt asks for no more
# threads than processors (sanitizers and valgrind need more address space)
case "${GBT_BUILD_CFLAGS:-}${GBT_TEST_WRAPPER:-}" in
*sanitize* | *valgrind*) echo "ok $((tap_n += 1)) # SKIP address-space limit under a sanitizer or valgrind" ;;
*)
    (ulimit -v 2000000 && "$gbtrain" -q --nthread=4096 --num_round=2 "$data/diabetes.train.csv" threads.model) 2> threads.err
    check "nthread=4096 under an address-space limit trains (threads capped at the processors)" \
        sh -c 'test -s threads.model && test ! -s threads.err'
    ;;
esac

"$gbtrain" -q --num_round=2 "$data/diabetes.train.csv" quiet.model 2> quiet.err
check "-q prints nothing" test ! -s quiet.err
# with checkpoints too (allowed since the rounds stay): the final save is the whole model
"$gbtrain" --objective=binary:logistic --num_round=50 --eta=1 --valid="$data/breast_cancer.test.csv" \
    --early_stopping_rounds=3 --save_period=4 "$data/breast_cancer.train.csv" es.model 2> es.err
check "early stopping reports the best round, after the checkpoints" \
    sh -c 'grep -Eq "best round [0-9]+" es.err && grep -q "saved 4 rounds to es.model" es.err'
# XGBoost 3.2's rule: every round stays (the stop comes 3 after the best) and the model records the best one
"$gbmodel" info es.model > es.info
best=$(sed -n 's/^best_iteration: //p' es.info)
check "the model keeps best_iteration + 3 + 1 rounds (best $best)" grep -qx "rounds: $((best + 4))" es.info
"$gbpredict" "$data/breast_cancer.test.csv" es.model es.pred 2> es.perr
"$gbpredict" -q --rounds=0:$((best + 1)) "$data/breast_cancer.test.csv" es.model es_best.pred
"$gbpredict" -q --rounds=0: "$data/breast_cancer.test.csv" es.model es_all.pred
check "gbpredict predicts with rounds 0..best_iteration by default, and says so" \
    sh -c "cmp -s es.pred es_best.pred && ! cmp -s es.pred es_all.pred && grep -q 'rounds 0..$best of $((best + 4))' es.perr"
"$gbtrain" -q --objective=binary:logistic --num_round=50 --eta=1 --valid="$data/breast_cancer.test.csv" \
    --early_stopping_rounds=3 --save_best "$data/breast_cancer.train.csv" es_cut.model
"$gbmodel" info es_cut.model > es_cut.info
"$gbpredict" -q "$data/breast_cancer.test.csv" es_cut.model es_cut.pred
check "--save_best keeps rounds 0..best only, which predict the same" \
    sh -c "grep -qx 'rounds: $((best + 1))' es_cut.info && grep -qx 'best_iteration: $best' es_cut.info && cmp -s es_cut.pred es.pred"

# Per-round metrics without --valid: the training data's, by the objective's default metric
cp "$data/breast_cancer.train.csv" bc.csv
"$gbtrain" --objective=binary:logistic --num_round=4 bc.csv bc.model 2> bc.err
check "without --valid each round prints the training metric ([3] train-logloss)" \
    sh -c 'test "$(grep -c "^\[[0-3]\]	train-logloss:[0-9.]*	" bc.err)" -eq 4'
"$gbpredict" -q bc.csv bc.model bc.pred
# the logloss of the saved model's training predictions, computed here from its definition
want=$(paste -d, bc.pred bc.csv | awk -F, '{ p = $1; y = $2; s += -(y * log(p) + (1 - y) * log(1 - p)) } END { printf "%.6f", s / NR }')
got=$(sed -n 's/^\[3\]	train-logloss:\([0-9.]*\).*/\1/p' bc.err)
echo "# train-logloss of round 3: printed $got, from the predictions $want"
check "and it is the logloss of the model's training predictions" \
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(a != "" && d < 2e-6 && d > -2e-6) }'
"$gbtrain" --num_round=2 --eval_train=0 bc.csv bc0.model 2> bc0.err
check "--eval_train=0 leaves it out" sh -c '! grep -q "train-" bc0.err && grep -q "^\[1\]" bc0.err'
"$gbtrain" --num_round=2 --valid="$data/breast_cancer.test.csv" bc.csv bcv.model 2> bcv.err
check "with --valid only the validation data is evaluated, as xgb.train with its evals" \
    sh -c '! grep -q "train-" bcv.err && grep -q "^\[1\]	breast_cancer.test-rmse:" bcv.err'
"$gbtrain" --num_round=2 --eval_train=1 --valid="$data/breast_cancer.test.csv" bc.csv bcv.model 2> bcv1.err
check "--eval_train=1 adds the training data before the validation data" \
    grep -q "^\[1\]	train-rmse:[0-9.]*	breast_cancer.test-rmse:" bcv1.err
"$gbtrain" --help > help.txt
check "--help gives gbtrain's verbosity default (2)" \
    sh -c 'grep -A1 -- "--verbosity=int" help.txt | grep -q "default 2, range \[0, 3\]"'
"$gbtrain" --num_round=2 --verbosity=3 bc.csv v3.model 2> v3.err
check "--verbosity=3 prints each round's trees and times" \
    grep -Eq "^\[1\] 1 tree, [0-9]+ leaves, depth [0-9]+; gradients and trees [0-9.]+ s, metrics [0-9.]+ s" v3.err
check "and the set-up's details" grep -q "^set-up: bin cuts and binned matrix" v3.err
check "which verbosity 2 does not" sh -c '! grep -q -e "^set-up:" -e "^\[1\] 1 tree" bc0.err'
"$gbtrain" --num_round=1 --verbosity=1 bc.csv v1.model 2> v1.err
check "--verbosity=1 prints no progress" test ! -s v1.err
check "the data read is named" grep -q "^read bc.csv: 427 rows, 30 features$" bc.err
awk '{ print 1 }' bc.csv > bc.csv.weight
awk '{ print 0.5 }' bc.csv > bc.csv.base_margin
printf '400\n27\n' > bc.csv.query
"$gbtrain" --num_round=1 bc.csv side.model 2> side.err
check "so are the side files read with it" \
    grep -q "^read bc.csv: 427 rows, 30 features; weights from bc.csv.weight; base margins from bc.csv.base_margin; groups from bc.csv.query$" side.err
"$gbpredict" bc.csv side.model side.pred 2> pside.err
check "gbpredict names the side files it read too (a base margin changes every prediction)" \
    grep -q "^read bc.csv: 427 rows, 30 features; weights from bc.csv.weight; base margins from bc.csv.base_margin; groups from bc.csv.query$" pside.err
"$gbpredict" -q bc.csv side.model side.pred 2> pside.err
check "(not with -q)" test ! -s pside.err

# An XGBoost CLI configuration (the keys of XGBoost's demo configurations),
# with no file arguments: trains as the same settings on the command line do
tolibsvm 1 "$data/breast_cancer.train.csv" > bc.train
tolibsvm 1 "$data/breast_cancer.test.csv" > bc.test
printf '%s\n' '# XGBoost CLI keys' 'booster = gbtree' 'objective = binary:logistic' 'eta = 1.0' 'gamma = 1.0' \
    'max_depth = 3' 'num_round = 2' 'save_period = 0' 'data = "bc.train?format=libsvm"' \
    'eval[test] = "bc.test?format=libsvm"' 'eval_train = 1' 'test:data = "bc.test?format=libsvm"' > xgb.conf
"$gbtrain" --config xgb.conf 2> xgb.err
check "an XGBoost CLI configuration trains without file arguments" test $? -eq 0
check "its model goes where XGBoost's CLI puts it: NNNN.model, the number of rounds" test -s 0002.model
"$gbtrain" -q --objective=binary:logistic --eta=1 --gamma=1 --max_depth=3 --num_round=2 --format=libsvm \
    bc.train plain2.model
check "the same model as the same settings on the command line" cmp -s 0002.model plain2.model
check "eval[test] names the validation set, eval_train = 1 adds the training data" \
    grep -q "^\[1\]	train-logloss:[0-9.]*	test-logloss:[0-9.]*	" xgb.err
mkdir xgbdir
printf 'data = bc.csv?format=csv&label_column=0\nmodel_dir = xgbdir\nnum_round = 3\nobjective = binary:logistic\n' > dir.conf
"$gbtrain" -q --config dir.conf
"$gbtrain" -q --objective=binary:logistic --num_round=3 bc.csv bc3.model
check "model_dir is where NNNN.model goes; a URI's format and label_column apply" cmp -s xgbdir/0003.model bc3.model
printf 'data = bc.csv\nmodel_out = named.model\nnum_round = 3\nobjective = binary:logistic\n' > out.conf
"$gbtrain" -q --config out.conf
check "model_out names the model" cmp -s named.model bc3.model
"$gbtrain" -q --config out.conf bc.train pos.model
check "file arguments win over data and model_out" sh -c 'test -s pos.model && ! cmp -s pos.model bc3.model'
printf 'task = pred\nmodel_in = 0002.model\ntest:data = "bc.test?format=libsvm"\nname_pred = xgb.pred\npred_margin = 1\n' > pred.conf
refusal=$("$gbtrain" --config pred.conf 2>&1 >/dev/null)
echo "# $refusal"
check "task = pred is refused with the gbpredict command that does it" \
    test "$refusal" = "gbtrain: pred.conf:1: task = pred: gbtrain only trains; predict with: gbpredict --margin --format=libsvm bc.test 0002.model xgb.pred"
"$gbpredict" -q --margin --format=libsvm bc.test 0002.model xgb.pred
check "and that command predicts" test "$(wc -l < xgb.pred)" -eq 142
# A count objective from the command line (issue 9): its default metric each round, and
# that value recomputed here from the saved model's predictions (lgamma by Stirling's series)
"$gbtrain" --objective=count:poisson --num_round=3 "$data/diabetes.train.csv" pois.model 2> pois.err
check "count:poisson prints poisson-nloglik each round" \
    sh -c 'test "$(grep -c "^\[[0-2]\]	train-poisson-nloglik:[0-9.]*	" pois.err)" -eq 3'
"$gbpredict" -q "$data/diabetes.train.csv" pois.model pois.pred
want=$(paste -d, pois.pred "$data/diabetes.train.csv" | awk -F, '
    function lgam(x,  s) { s = 0; while (x < 10) { s -= log(x); x += 1 }
        return s + (x - 0.5) * log(x) - x + 0.5 * log(2 * 3.141592653589793) + 1 / (12 * x) - 1 / (360 * x ^ 3) }
    { p = $1; y = $2; s += lgam(y + 1) + p - log(p) * y } END { printf "%.6f", s / NR }')
got=$(sed -n 's/^\[2\]	train-poisson-nloglik:\([0-9.]*\).*/\1/p' pois.err)
echo "# poisson-nloglik of round 2: printed $got, from the predictions $want"
check "and it is the Poisson negative log-likelihood of the model's predictions" \
    awk -v a="$got" -v b="$want" 'BEGIN { d = (a - b) / b; exit !(a != "" && d < 1e-5 && d > -1e-5) }'
# Survival from the command line (issue 9): survival:aft's intervals from FILE.lower and
# FILE.upper (a third right-censored), survival:cox's censoring as negative labels
cp "$data/diabetes.train.csv" surv.csv
awk -F, '{ print $1 }' surv.csv > surv.csv.lower
awk -F, '{ print (NR % 3 == 0) ? "inf" : $1 }' surv.csv > surv.csv.upper
"$gbtrain" --objective=survival:aft --num_round=3 surv.csv aft.model 2> aft.err
check "survival:aft reads FILE.lower and FILE.upper" \
    grep -q "^read surv.csv: [0-9]* rows, 10 features; lower bounds from surv.csv.lower; upper bounds from surv.csv.upper$" aft.err
check "and prints aft-nloglik each round" \
    sh -c 'test "$(grep -c "^\[[0-2]\]	train-aft-nloglik:[0-9.]*	" aft.err)" -eq 3'
"$gbpredict" -q --metric=interval-regression-accuracy --metric=aft-nloglik surv.csv aft.model aft.pred 2> paft.err
check "gbpredict evaluates the AFT metrics against the side files" \
    sh -c 'grep -q "^interval-regression-accuracy	0\.[0-9]*$" paft.err && grep -q "^aft-nloglik	[0-9.]*$" paft.err'
awk -F, 'BEGIN { OFS = "," } NR % 4 == 0 { $1 = -$1 } { print }' "$data/diabetes.train.csv" > cox.csv
"$gbtrain" --objective=survival:cox --num_round=3 cox.csv cox.model 2> cox.err
check "survival:cox prints cox-nloglik each round" \
    sh -c 'test "$(grep -c "^\[[0-2]\]	train-cox-nloglik:[0-9.]*	" cox.err)" -eq 3'
"$gbpredict" -q cox.csv cox.model cox.pred
check "and predicts positive hazard ratios" awk '!($1 > 0) { bad = 1 } END { exit bad || NR == 0 }' cox.pred

# Learning to rank from the command line (issue 9): groups from qid:, the default metric
# each round, and gbpredict scoring per query whether the groups come from qid: or a .group file
"$gbtrain" --objective=rank:ndcg --num_round=3 "$data/rank.train.libsvm" rank.model 2> rank.err
check "rank:ndcg trains on qid: groups and prints ndcg@32 each round" \
    sh -c 'test "$(grep -c "^\[[0-2]\]	train-ndcg@32:0\.[0-9]*	" rank.err)" -eq 3'
"$gbpredict" --metric=ndcg@10 "$data/rank.test.libsvm" rank.model rank.pred 2> rankp.err
check "gbpredict --metric=ndcg@10 scores the queries of a qid: file" grep -Eq "^ndcg@10	0\.[0-9]+$" rankp.err
"$gbpredict" --metric=map@10- "$data/rank.test.libsvm" rank.model rankm.pred 2> rankm.err
check "map@10- refuses graded relevance, naming the first row above 1" grep -q "row 2: label 4 is not 0 or 1" rankm.err
awk '{ printf "%s", $1; delete v; for (i = 3; i <= NF; i++) { split($i, kv, ":"); v[kv[1]] = kv[2] }
       for (f = 1; f <= 12; f++) printf ",%s", (f in v) ? v[f] : ""; printf "\n" }' "$data/rank.test.libsvm" > rank.csv
awk '{ split($2, q, ":"); if (q[2] != last) { if (n) print n; n = 0; last = q[2] } n++ } END { print n }' \
    "$data/rank.test.libsvm" > rank.csv.group
"$gbpredict" --metric=ndcg@10 rank.csv rank.model rankc.pred 2> rankc.err
check "the same scores and the same ndcg@10 from a CSV with a .group file" \
    sh -c 'cmp -s rank.pred rankc.pred && test "$(grep "^ndcg@10" rankp.err)" = "$(grep "^ndcg@10" rankc.err)"'
rm rank.csv.group
"$gbpredict" --metric=ndcg@10 rank.csv rank.model rankc.pred 2> rankn.err
check "without groups the whole file is one query (another ndcg@10)" \
    sh -c 'grep -q "^ndcg@10" rankn.err && test "$(grep "^ndcg@10" rankp.err)" != "$(grep "^ndcg@10" rankn.err)"'
"$gbtrain" --objective=rank:ndcg --num_round=1 rank.csv norank.model 2> norank.err
check "a ranking objective without groups: an error naming .group, .query and qid:" \
    sh -c 'grep -q "needs query groups" norank.err && grep -q "FILE.group" norank.err && grep -q "qid:" norank.err'
# weights per query group (XGBoost's form) in a .weight file: the model of the same weights per row
awk '{ split($2, q, ":"); if (q[2] != last) { if (n) print n; n = 0; last = q[2] } n++ } END { print n }' \
    "$data/rank.test.libsvm" > rank.csv.group
awk '{ print (NR % 3) + 0.5 }' rank.csv.group > rank.csv.weight
"$gbtrain" -q --objective=rank:ndcg --num_round=2 rank.csv rankgw.model
awk 'NR == FNR { w[NR] = (NR % 3) + 0.5; s[NR] = $1; next } END { for (g = 1; g in s; g++) for (i = 0; i < s[g]; i++) print w[g] }' \
    rank.csv.group rank.csv.group > rank.csv.weight
"$gbtrain" -q --objective=rank:ndcg --num_round=2 rank.csv rankrw.model
"$gbtrain" -q --objective=rank:ndcg --num_round=2 "$data/rank.test.libsvm" rankuw.model
check "a .weight file of one weight per query group trains the model of those weights per row" \
    sh -c 'cmp -s rankgw.model rankrw.model && ! cmp -s rankgw.model rankuw.model'
rm rank.csv.group rank.csv.weight

# constraints in a config file (quoted or not) equal them on the command line, and the model keeps them
printf 'monotone_constraints = "(0,0,1,1,0,0,0,0,1,0)"\ninteraction_constraints = [[0,1],[2,3,8],[4,5,6,7,9]]\n' > cons.conf
"$gbtrain" -q --config cons.conf --num_round=3 "$data/diabetes.train.csv" cons1.model
"$gbtrain" -q --monotone_constraints='[0,0,1,1,0,0,0,0,1,0]' --num_round=3 \
    --interaction_constraints='[[0,1],[2,3,8],[4,5,6,7,9]]' "$data/diabetes.train.csv" cons2.model
"$gbtrain" -q --num_round=3 "$data/diabetes.train.csv" cons3.model
gbmodel dump cons1.model d1
gbmodel dump cons2.model d2
gbmodel dump cons3.model d3
check "constraints from a config file give the command line's trees" cmp -s d1 d2
check "and not the unconstrained trees" sh -c '! cmp -s d1 d3'
check "the model keeps the constraints" grep -q '"interaction_constraints": "\[\[0,1\],\[2,3,8\],\[4,5,6,7,9\]\]"' cons1.model

# multi-target: FILE.label of 3 numbers a line (the file's label, then two constants); target 0's
# trees are those of the file's label alone, the constant targets' predictions their values
cp "$data/diabetes.train.csv" one.csv
cp "$data/diabetes.train.csv" mt.csv
awk -F, '{ print $1, 2.5, -3 }' mt.csv > mt.csv.label
"$gbtrain" -q --num_round=3 one.csv one.model
"$gbtrain" --num_round=3 mt.csv mt.model 2> mt.err
check "gbtrain reads FILE.label and names it" grep -q "labels from mt.csv.label" mt.err
"$gbpredict" -q one.csv one.model one.txt
"$gbpredict" -q mt.csv mt.model mt.txt
check "a multi-target model: gbpredict writes 3 columns" awk -F'\t' 'NF != 3 { exit 1 }' mt.txt
cut -f1 mt.txt > mt1.txt
check "target 0 predicts as a model of the file's label alone" cmp -s mt1.txt one.txt
printf '2.5\t-3\n' > mt23.txt
cut -f2,3 mt.txt | sort -u > mt23got.txt
check "the constant targets predict their values" cmp -s mt23.txt mt23got.txt
"$gbmodel" info mt.model > mt.info
check "gbmodel info gives the model's 3 targets" grep -qx "num_target: 3" mt.info

ls | grep -q '\.tmp\.' && leftover=yes || leftover=no
check "no temporary files are left" test "$leftover" = no
done_testing
