#!/bin/sh
# mpi_predict.sh - gbpredict under mpirun: each rank predicts its share of
# the rows and rank 0 writes them all in order, byte for byte the output of
# gbpredict in one process.  Run only in a build with MPI.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
. "$srcdir/tests/mpi_env.sh"
mpi() { timeout 120 "$MPIRUN" --oversubscribe "$@"; }

gbtrain -q --num_round=4 --objective=multi:softprob --num_class=10 "$data/digits.train.csv" digits.model
gbpredict -q "$data/digits.test.csv" digits.model one.txt
mpi -np 3 "$builddir/gbpredict" -q "$data/digits.test.csv" digits.model three.txt
check "multi:softprob, -np 3, row ranges of one file: the single-process output" cmp three.txt one.txt
mpi -np 3 "$builddir/gbpredict" -q "$data/digits.test.csv" digits.model > stdout.txt
check "-np 3 to standard output: the same" cmp stdout.txt one.txt
gbpredict -q --pred_contribs "$data/digits.test.csv" digits.model one.txt
mpi -np 3 "$builddir/gbpredict" -q --pred_contribs "$data/digits.test.csv" digits.model three.txt
check "--pred_contribs, -np 3: the single-process output" cmp three.txt one.txt

gbtrain -q --num_round=4 --objective=rank:ndcg "$data/rank.train.libsvm" rank.model
gbpredict -q "$data/rank.test.libsvm" rank.model one.txt
mpi -np 3 "$builddir/gbpredict" -q "$data/rank.test.libsvm" rank.model three.txt
check "rank:ndcg, LIBSVM with groups, -np 3: the single-process output" cmp three.txt one.txt

# one file per rank, uneven: rank 0 with one row, rank 1 with the rest but one, rank 2 with one
D="$data/breast_cancer.test.csv"
gbtrain -q --num_round=4 --objective=binary:logistic "$data/breast_cancer.train.csv" bc.model
gbpredict -q "$D" bc.model one.txt
n=$(wc -l < "$D")
head -1 "$D" > p0.csv
sed -n "2,$((n - 1))p" "$D" > p1.csv
tail -1 "$D" > p2.csv
mpi -np 3 "$builddir/gbpredict" -q 'p%d.csv' bc.model three.txt
check "one file per rank (p%d.csv), uneven, -np 3: the single-process output" cmp three.txt one.txt
mpi -np 4 "$builddir/gbpredict" -q "$data/breast_cancer.test.csv" bc.model four.txt
check "-np 4: the single-process output" cmp four.txt one.txt
printf '0,1.5,2\n' > tiny.csv
gbtrain -q --num_round=1 --objective=binary:logistic --min_child_weight=0 tiny.csv tiny.model
printf '0,1.5,2\n1,0.5,3\n' > tiny2.csv
gbpredict -q tiny2.csv tiny.model one.txt
mpi -np 4 "$builddir/gbpredict" -q tiny2.csv tiny.model four.txt
check "2 rows on 4 ranks (ranks without rows): the single-process output" cmp four.txt one.txt

done_testing
