#!/bin/sh
# mpi_errors.sh - gbtrain and gbpredict under mpirun when one rank fails:
# every rank exits with status 1 (none hangs, none exits alone while the
# others wait), the message names the rank, the file and the line, and no
# model or output file is written; booster=gblinear is refused alike on
# every rank.  Run only in a build with MPI.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
. "$srcdir/tests/mpi_env.sh"

# mpi NP TOOL ARGS...: runs TOOL on NP ranks under `timeout 60`; each rank's
# exit status goes to rc.R, standard error to err.txt; $status is mpirun's
mpi() {
    np=$1
    tool=$2
    shift 2
    rm -f rc.*
    # every rank runs to its end: mpirun would otherwise kill the others when the first exits non-zero
    OMPI_MCA_orte_abort_on_non_zero_status=0 timeout 60 "$MPIRUN" -np "$np" --oversubscribe sh -c '"$0" "$@"; s=$?; echo $s > rc.$OMPI_COMM_WORLD_RANK; exit $s' \
        "$builddir/$tool" "$@" > out.txt 2> err.txt
    status=$?
}

# all_failed NP: every rank wrote status 1
all_failed() {
    r=0
    while [ "$r" -lt "$1" ]; do
        [ "$(cat "rc.$r" 2>/dev/null)" = 1 ] || return 1
        r=$((r + 1))
    done
}

D="$data/breast_cancer.train.csv"
head -200 "$D" > s0.csv
sed -n 201,300p "$D" | sed '5s/^\([^,]*\),\([^,]*\),/\1,x\2,/' > s1.csv
sed -n 301,500p "$D" > s2.csv

mpi 3 gbtrain --num_round=2 --objective=binary:logistic 's%d.csv' bad.model
check "rank 1's malformed shard: mpirun ends within 60 s (no hang)" test "$status" -ne 124
timeout 60 "$MPIRUN" -np 3 --oversubscribe "$builddir/gbtrain" --num_round=2 's%d.csv' bad.model 2> /dev/null
check "and mpirun exits non-zero" test $? -ne 0
check "every rank exits with status 1" all_failed 3
check "the message names rank 1, its file and line" grep -q "gbtrain: rank 1: reading data: s1.csv:5: .*x18.81" err.txt
check "it is printed once (by rank 0)" test "$(grep -c 'rank 1: reading data' err.txt)" -eq 1
check "no model file is written" test ! -e bad.model

sed -n 201,300p "$D" > s1.csv
rm -f s2.csv
mpi 3 gbtrain --num_round=2 --objective=binary:logistic 's%d.csv' bad.model
check "rank 2's missing shard: every rank exits with status 1" all_failed 3
check "the message names rank 2 and the file" grep -q "rank 2: reading data: .*s2.csv" err.txt
check "no model file is written" test ! -e bad.model

# one file shared by row ranges: every rank reads it all, so rank 0 reports the bad line
sed '205s/^\([^,]*\),\([^,]*\),/\1,x\2,/' "$D" > bad.csv
mpi 2 gbtrain --num_round=2 --objective=binary:logistic bad.csv bad.model
check "a malformed line in a shared file: every rank exits with status 1" all_failed 2
check "the message names the file and line" grep -q "rank 0: reading data: bad.csv:205:" err.txt
check "no model file is written" test ! -e bad.model

# an option error: the same on every rank
mpi 2 gbtrain --num_round=x bad.csv bad.model
check "a bad option: every rank exits with status 1" all_failed 2
check "with the message" grep -q "num_round expects an integer" err.txt

# an error inside training, on one rank: shards of different feature counts
# (the library's check across ranks, gbt_booster_set_mpi_comm)
head -100 "$D" > f0.csv
sed -n 101,200p "$D" | cut -d, -f1-20 > f1.csv
mpi 2 gbtrain --num_round=2 --objective=binary:logistic 'f%d.csv' bad.model
check "shards with different feature counts: every rank exits with status 1" all_failed 2
check "the library's training error names the rank" grep -Eq "training: rank [01]: " err.txt
check "no model file is written" test ! -e bad.model

# category names that differ between the ranks' files (rank 0: a b c, rank 1: b c d): each rank's
# codes would mean other categories, so every rank is refused before training
printf '1,a\n0,b\n0,c\n1,a\n' > c0.csv
printf '0,b\n0,c\n1,d\n1,d\n' > c1.csv
mpi 2 gbtrain --num_round=2 --categorical_feature=0 'c%d.csv' bad.model
check "rank 1's other category names: every rank exits with status 1" all_failed 2
check "the message names rank 1, the feature and a differing name" \
    grep -q "rank 1: feature 0's categories differ from rank 0's: category 0 is 'b' there, 'a' on rank 0" err.txt
check "no model file is written" test ! -e bad.model

# training data read in batches (#CACHE): rank 1's bad line in a later batch reaches every rank with its
# file and line; a file shared by every rank is refused (one file per rank: %d)
head -200 "$D" > b0.csv
sed -n 201,400p "$D" | sed '150s/^\([^,]*\),\([^,]*\),/\1,x\2,/' > b1.csv
mpi 2 gbtrain --num_round=2 --objective=binary:logistic 'b%d.csv?batch_bytes=4000#c' bad.model
check "batches: rank 1's bad line in a later batch: every rank exits with status 1" all_failed 2
check "the message names rank 1, its file and line" grep -q "rank 1: b1.csv:150: value 'x" err.txt
check "no model file is written" test ! -e bad.model
mpi 2 gbtrain --num_round=2 --objective=binary:logistic 'b0.csv#c' bad.model
check "batches of one file shared by the ranks: refused on every rank, saying to name one file per rank" \
    sh -c 'grep -q "one file per rank: name it with %d" err.txt && test ! -e bad.model'

# gbpredict: rank 1's malformed shard; no output file
gbtrain -q --num_round=2 --objective=binary:logistic "$D" good.model
sed -n 201,300p "$D" | sed '5s/^\([^,]*\),\([^,]*\),/\1,x\2,/' > s1.csv
sed -n 301,500p "$D" > s2.csv
mpi 3 gbpredict 's%d.csv' good.model pred.txt
check "gbpredict, rank 1's malformed shard: every rank exits with status 1" all_failed 3
check "the message names rank 1, its file and line" grep -q "gbpredict: rank 1: reading data: s1.csv:5:" err.txt
check "no output file is written" test ! -e pred.txt
mpi 2 gbpredict --metric=auc "$D" good.model pred.txt
check "gbpredict --metric under mpirun is refused on every rank" all_failed 2
check "with a message saying why" grep -q "metric is not available under mpirun" err.txt

# booster=gblinear does not train distributed: refused alike on every rank, no model
head -200 "$D" > g0.csv
sed -n 201,400p "$D" > g1.csv
mpi 2 gbtrain --num_round=2 --booster=gblinear 'g%d.csv' lin.model
check "booster=gblinear under mpirun: every rank exits with status 1" all_failed 2
check "with a message saying why" grep -q "booster=gblinear does not train distributed (MPI)" err.txt
check "no model file is written" test ! -e lin.model

done_testing
