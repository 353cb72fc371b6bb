#!/bin/sh
# mpi_train.sh - gbtrain under mpirun on 1 to 4 ranks writes the model file
# of the single-process gbtrain, byte for byte (gbt_booster_set_mpi_comm's
# promise): on the bundled data sets and generated ones, dense and sparse,
# with missing values, weights, groups, sampling, early stopping,
# categorical features, and
# shards of one file (row ranges) or one file per rank (FILE%d), uneven
# ones and ranks without rows included.  Run only in a build with MPI.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
. "$srcdir/tests/mpi_env.sh"

# same NAME REF MODEL: a TAP line; on a difference, the first differing bytes and lines
same() {
    tap_n=$((tap_n + 1))
    if [ -s "$3" ] && cmp -s "$2" "$3"; then
        echo "ok $tap_n - $1"
        return
    fi
    tap_failed=$((tap_failed + 1))
    if [ ! -s "$3" ]; then
        echo "not ok $tap_n - $1: no model written; stderr: $(tail -c 400 "$3.err" 2>/dev/null | tr '\n' ' ')"
        return
    fi
    echo "not ok $tap_n - $1: $(cmp "$2" "$3" 2>&1)"
    line=$(cmp "$2" "$3" 2>/dev/null | sed -n 's/.*line \([0-9]*\).*/\1/p')
    byte=$(cmp "$2" "$3" 2>/dev/null | sed -n 's/.*byte \([0-9]*\),.*/\1/p')
    echo "# bytes from $byte: single process: $(tail -c +"$byte" "$2" | head -c 60 | tr '\n' ' ')"
    echo "# bytes from $byte: mpirun:         $(tail -c +"$byte" "$3" | head -c 60 | tr '\n' ' ')"
    echo "# line $line: single process: $(sed -n "${line}p" "$2" | cut -c1-200)"
    echo "# line $line: mpirun:         $(sed -n "${line}p" "$3" | cut -c1-200)"
}

# run NAME TRAIN_ARG OPTIONS...: the single-process model of the whole data
# (REF_TRAIN, set by the caller), then mpirun -np N on TRAIN_ARG for each N
# of $nps, which it then clears: 2 and 3 ranks (even and uneven shares of
# the rows) unless the caller set it, 1 and 4 as well in the cases that
# do (starting mpirun is most of this test's time: about 1.5 s a run on a
# loaded 2-core machine)
run() {
    name=$1
    arg=$2
    shift 2
    gbtrain -q "$@" "$REF_TRAIN" "ref.model" 2> ref.err || { cat ref.err; }
    for n in ${nps:-2 3}; do
        rm -f mpi.model
        timeout 300 "$MPIRUN" -np "$n" --oversubscribe "$builddir/gbtrain" -q "$@" "$arg" mpi.model 2> mpi.model.err
        same "$name, mpirun -np $n: the single-process model" ref.model mpi.model
    done
    nps=
}

# shards ROWS_FILE N: ROWS_FILE cut into N contiguous files shard0.. (rank 0: one row)
shards() {
    total=$(wc -l < "$1")
    awk -v n="$2" -v total="$total" '
        { if (n == 1) r = 0; else if (NR == 1) r = 0; else r = 1 + int((NR - 2) * (n - 1) / (total - 1)); print > ("shard" r ".csv") }' "$1"
}

opts="--num_round=5 --nthread=1 --seed=3"

REF_TRAIN="$data/breast_cancer.train.csv"
nps="1 2 3 4"
run "binary:logistic depthwise" "$REF_TRAIN" $opts --objective=binary:logistic --max_depth=4
run "binary:logistic lossguide max_leaves=16" "$REF_TRAIN" $opts --objective=binary:logistic \
    --grow_policy=lossguide --max_leaves=16 --max_depth=0
REF_TRAIN="$data/digits.train.csv"
nps="2 3 4"
run "multi:softprob digits" "$REF_TRAIN" $opts --objective=multi:softprob --num_class=10 --max_depth=3
REF_TRAIN="$data/diabetes.train.csv"
run "reg:squarederror subsample 0.8 colsample_bynode 0.7" "$REF_TRAIN" $opts --objective=reg:squarederror \
    --subsample=0.8 --colsample_bynode=0.7
REF_TRAIN="$data/rank.train.libsvm"
run "rank:ndcg sparse LIBSVM, groups from qid" "$REF_TRAIN" $opts --objective=rank:ndcg --max_depth=4

# constraints (issue 24): monotone, interaction, and feature weights from a side file with sampling
REF_TRAIN="$data/diabetes.train.csv"
run "monotone and interaction constraints" "$REF_TRAIN" $opts --objective=reg:squarederror \
    --monotone_constraints='(0,0,1,1,0,0,0,0,1,0)' --interaction_constraints='[[0,1],[2,3,8],[4,5,6,7,9]]'
cp "$data/diabetes.train.csv" fw.csv
echo "1 1 2 2 0.5 0.5 1 0 3 1" > fw.csv.feature_weights
REF_TRAIN=fw.csv
run "feature weights (a .feature_weights side file), lossguide, monotone by name" fw.csv $opts \
    --objective=reg:squarederror --colsample_bynode=0.5 --colsample_bytree=0.8 --grow_policy=lossguide \
    --max_leaves=12 --max_depth=0 --monotone_constraints='{f2:1,f8:1}'

# generated: missing values (empty CSV fields) and weights (a .weight side file)
awk 'BEGIN { srand(7); for (i = 0; i < 500; i++) { x1 = rand(); x2 = rand(); x3 = rand();
        y = (x1 + (i % 3 ? x2 : 0) > 1) ? 1 : 0;
        printf "%d,%s,%s,%.4f\n", y, (i % 5 == 0 ? "" : sprintf("%.4f", x1)), (i % 3 == 0 ? "" : sprintf("%.4f", x2)), x3 } }' > missing.csv
REF_TRAIN=missing.csv
run "missing values" missing.csv $opts --objective=binary:logistic
cp missing.csv weighted.csv
awk '{ print (NR % 3 == 0 ? 0.5 : NR % 3 == 1 ? 1 : 2) }' missing.csv > weighted.csv.weight
REF_TRAIN=weighted.csv
run "weights from a .weight side file" weighted.csv $opts --objective=binary:logistic

# a validation set with early stopping (the validation file is shared out too)
REF_TRAIN="$data/breast_cancer.train.csv"
run "validation set with early stopping" "$REF_TRAIN" --num_round=200 --nthread=1 --eta=0.5 \
    --objective=binary:logistic --valid="$data/breast_cancer.test.csv" --early_stopping_rounds=3

# checkpoints every 2 rounds (rank 0 writes them), then the final model
run "binary:logistic with --save_period=2" "$REF_TRAIN" $opts --objective=binary:logistic --save_period=2

# random forests: 3 parallel trees a round, each drawing its own rows from the
# round's starting margins (the backend's write_margins op, distributed too)
run "num_parallel_tree 3, subsample 0.8, colsample_bynode 0.8" "$REF_TRAIN" $opts \
    --objective=binary:logistic --num_parallel_tree=3 --subsample=0.8 --colsample_bynode=0.8 --max_depth=3

# dart: the drops drawn on the host from the seed and the round, each process's margins without
# them summed from its own rows (write_margins again)
nps="2"
run "booster dart, rate_drop 0.3, one_drop, weighted" "$REF_TRAIN" $opts \
    --objective=binary:logistic --booster=dart --rate_drop=0.3 --one_drop=1 --sample_type=weighted --max_depth=3

# run_file NAME TRAIN OPTIONS...: run on TRAIN itself (every objective), on 3
# ranks: what an objective adds to a distributed training (its starting
# score, host gradients and leaf refits from the gathered labels, weights,
# groups and margins) has no code that depends on the number of ranks, and
# 3 ranks (uneven shares, two cuts, a rank neither first nor last) is the
# harder case of the gathers; the cases above run on 2 ranks as well
run_file() {
    name=$1
    REF_TRAIN=$2
    shift 2
    nps=3
    run "$name" "$REF_TRAIN" "$@"
}
for obj in reg:squarederror reg:squaredlogerror reg:pseudohubererror reg:absoluteerror count:poisson \
    reg:gamma reg:tweedie; do
    run_file "$obj" "$data/diabetes.train.csv" $opts --objective=$obj --subsample=0.8
done
run_file "reg:quantileerror, three quantiles" "$data/diabetes.train.csv" $opts --objective=reg:quantileerror \
    --quantile_alpha=0.1,0.5,0.9 --grow_policy=lossguide --max_leaves=8 --max_depth=0
for obj in binary:logistic binary:logitraw; do
    run_file "$obj, scale_pos_weight 2" "$data/breast_cancer.train.csv" $opts --objective=$obj --scale_pos_weight=2
done
for obj in binary:hinge reg:logistic; do
    run_file "$obj" "$data/breast_cancer.train.csv" $opts --objective=$obj
done
run_file "multi:softmax" "$data/digits.train.csv" $opts --objective=multi:softmax --num_class=10 --max_depth=3
run_file "survival:cox" "$data/survival.train.csv" $opts --objective=survival:cox
run_file "survival:aft, bounds from .lower/.upper" "$data/survival.train.csv" $opts --objective=survival:aft \
    --aft_loss_distribution=logistic
run_file "rank:pairwise, mean pairs, subsample" "$data/rank.train.libsvm" $opts --objective=rank:pairwise \
    --lambdarank_pair_method=mean --lambdarank_num_pair_per_sample=3 --subsample=0.8
awk '{ $1 = ($1 >= 2) ? 1 : 0; print }' "$data/rank.train.libsvm" > rank-binary.libsvm
run_file "rank:map, lossguide" rank-binary.libsvm $opts --objective=rank:map --grow_policy=lossguide \
    --max_leaves=12 --max_depth=0
# multi-target (issue 33): 3 labels a row from a .label side file, each target's leaves refit to its median
cp "$data/diabetes.train.csv" mt.csv
awk -F, '{ print $1, $2 * 10, -$1 }' mt.csv > mt.csv.label
run_file "multi-target reg:absoluteerror, labels from .label" mt.csv $opts --objective=reg:absoluteerror --subsample=0.8
run_file "max_bin 16: cuts merged from every rank's values" "$data/diabetes.train.csv" $opts \
    --objective=reg:squarederror --max_bin=16

# one file per rank (FILE%d): uneven, rank 0 with a single row
REF_TRAIN="$data/breast_cancer.train.csv"
gbtrain -q $opts --objective=binary:logistic "$REF_TRAIN" ref.model 2> ref.err
for n in 1 2 3 4; do
    rm -f shard*.csv mpi.model
    shards "$REF_TRAIN" "$n"
    timeout 300 "$MPIRUN" -np "$n" --oversubscribe "$builddir/gbtrain" -q $opts --objective=binary:logistic \
        'shard%d.csv' mpi.model 2> mpi.model.err
    same "one file per rank (shard%d.csv), rank 0 with 1 row, mpirun -np $n: the single-process model" ref.model mpi.model
done

# categorical features: the categories of every rank's rows make the bins (a rank may miss some);
# 30 categories (partitions) with missing values, and 300 (two-byte codes)
awk 'BEGIN { srand(11); for (i = 0; i < 600; i++) { c = int(rand() * 30); x = rand();
        printf "%.4f,%.4f,%s,%d\n", sin(c * 1.3) + x, x, (i % 7 == 0 ? "" : c), int(rand() * 300) } }' > cat.csv
REF_TRAIN=cat.csv
nps="2 3 4"
run "categorical features (30 and 300 categories)" cat.csv $opts --categorical_feature=1,2 --max_depth=4
run "categorical features, lossguide, max_cat_threshold 4, LightGBM's cat_smooth, cat_l2, min_data_per_group" \
    cat.csv $opts --categorical_feature=1,2 --grow_policy=lossguide --max_leaves=12 --max_depth=0 \
    --max_cat_threshold=4 --cat_smooth=3 --cat_l2=1 --min_data_per_group=10
# the same file cut in two, one a rank, read in batches: each batch's types from --categorical_feature
head -n 250 cat.csv > cat0.csv
tail -n +251 cat.csv > cat1.csv
nps=2
run "categorical features in batches (cat%d.csv?batch_bytes=3000#c)" 'cat%d.csv?batch_bytes=3000#c' $opts \
    --categorical_feature=1,2 --max_depth=4

# category names (category_names=1) in one file per rank: each rank's file has every name, in another
# row order, so each rank's byte-sorted list is the concatenated file's (ranks whose names differ are
# refused: tests/mpi_errors.sh)
awk 'BEGIN { srand(7); split("red green blue gold", n); for (i = 0; i < 80; i++) { k = 1 + (i * 3) % 4;
        printf "%.3f,%s,%.3f\n", (k == 2 || k == 4) + rand() / 4, n[k], rand() } }' > names.csv
head -40 names.csv > names0.csv
tail -40 names.csv > names1.csv
REF_TRAIN=names.csv
nps=2
run "category names, one file per rank" 'names%d.csv' $opts --categorical_feature=0 --max_depth=3

# training data read in batches (PATH%d#CACHE, gbt_dataset_from_file_iter_mpi): each rank's distinct
# values merged over the ranks make the cuts, each rank bins its own file's batches with them
# (2 ranks; a reference read whole by one process): regression with weights spanning 2^30 (so the
# batches' lists are read again at the final fixed-point shift), and rank:ndcg with PATH.group
awk '{ print (NR % 3 == 0 ? 0.3 : NR % 3 == 1 ? 0.000000001 : 2) }' "$data/diabetes.train.csv" > it.csv.weight
cp "$data/diabetes.train.csv" it.csv
head -n 150 it.csv > it0.csv
tail -n +151 it.csv > it1.csv
head -n 150 it.csv.weight > it0.csv.weight
tail -n +151 it.csv.weight > it1.csv.weight
REF_TRAIN=it.csv
nps=2
run "batches (it%d.csv?batch_bytes=3000#c), weighted: the cuts of both ranks' rows" 'it%d.csv?batch_bytes=3000#c' \
    $opts --objective=reg:squarederror
head -n 686 "$data/rank.train.libsvm" | sed 's/ qid:[0-9]*//' > rk.svm
head -n 686 "$data/rank.train.libsvm" | awk '{ q = $2; if (q != last && NR > 1) { print n; n = 0 } n++; last = q }
    END { print n }' > rk.svm.group
head -n 419 rk.svm > rk0.svm
tail -n +420 rk.svm > rk1.svm
head -n 20 rk.svm.group > rk0.svm.group
tail -n +21 rk.svm.group > rk1.svm.group
REF_TRAIN=rk.svm
nps=2
run "batches of LIBSVM files with PATH.group, rank:ndcg" 'rk%d.svm?indexing_mode=auto&batch_bytes=8000#c' \
    $opts --objective=rank:ndcg --max_depth=3

# ranks without rows: 3 rows shared among up to 4 ranks (row ranges of one file)
# (a file of no rows is refused by the reader: 'no data rows')
printf '1,0.5,2\n0,1.5,1\n1,2.5,0\n' > tiny.csv
REF_TRAIN=tiny.csv
nps="2 3 4"
run "3 rows, ranks without rows" tiny.csv --num_round=2 --nthread=1 --objective=binary:logistic --min_child_weight=0

done_testing
