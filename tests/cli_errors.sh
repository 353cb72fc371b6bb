#!/bin/sh
# cli_errors.sh - bad input: a clear message naming the file (and line),
# a non-zero exit, and no partial or clobbered output.
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1
tr=$data/breast_cancer.train.csv

: > empty.csv
fails "empty file" "empty.csv: no data rows" "$gbtrain" -q empty.csv
printf '1,2,3\n0,4,x\n' > nonnum.csv
fails "non-numeric value names file and line" "nonnum.csv:2: value 'x' in column 2" "$gbtrain" -q nonnum.csv
printf '1,2,3\nlabel,4,5\n' > nonnumlabel.csv
fails "non-numeric label names file and line" "nonnumlabel.csv:2: label 'label'" "$gbtrain" -q nonnumlabel.csv
printf '1 1:1\n0 -2:1\n' > neg.libsvm
fails "negative feature index" "neg.libsvm:2: negative feature index" "$gbtrain" -q neg.libsvm
printf '1 1:1\n0 2.5:1\n' > frac.libsvm
fails "non-integer feature index" "frac.libsvm:2: feature index '2.5'" "$gbtrain" -q frac.libsvm
printf '1 1:1\n0 123456789012:1\n' > big.libsvm
fails "absurdly large feature index" "big.libsvm:2: feature index .* too large" "$gbtrain" -q big.libsvm
printf '1 1:1\nnan 1:2\n' > nanlabel.libsvm
fails "NaN label" "nanlabel.libsvm:2: label is NaN" "$gbtrain" -q nanlabel.libsvm
printf '1,1\n-inf,2\n' > inflabel.csv
fails "infinite label" "inflabel.csv:2: label is infinite" "$gbtrain" -q inflabel.csv
printf '1,1\n0,2\n2,3\n' > three.csv
fails "binary label not 0/1 names file and line" "three.csv:3: label 2 is not 0 or 1 for binary:logistic" \
    "$gbtrain" -q --objective=binary:logistic three.csv
fails "class label >= num_class" "three.csv:3: label 2 is not below num_class" \
    "$gbtrain" -q --objective=multi:softmax --num_class=2 three.csv
printf '1,2,3\r\n0,4\r\n' > ragged.csv
fails "ragged CSV rows" "ragged.csv:2: 2 fields, but line 1 has 3" "$gbtrain" -q ragged.csv
cp "$tr" g.csv
printf '400\n20\n' > g.csv.group
fails "group sizes not summing to the rows" "g.csv.group: group sizes sum to 420 but .* has 427 rows" "$gbtrain" -q g.csv
cp "$tr" w.csv
printf '1\n2\n' > w.csv.weight
fails "weights of the wrong length" "w.csv.weight: 2 weights for 427 rows" "$gbtrain" -q w.csv
awk '{ print NR == 5 ? -1 : 1 }' "$tr" > w.csv.weight
fails "negative weight" "w.csv.weight: weight -1 of row 4 is negative" "$gbtrain" -q w.csv

fails "unknown parameter with a suggestion" "unknown parameter 'max_dept'; did you mean 'max_depth'" \
    "$gbtrain" -q --max_dept=3 "$tr"
fails "parameter out of range shows the range" "parameter 'subsample' expects a number in \(0, 1\], got '2'" \
    "$gbtrain" -q --subsample=2 "$tr"
printf 'eta = fast\n' > bad.conf
fails "a bad value in a config file names the file and line" "bad.conf:1: parameter 'eta'" \
    "$gbtrain" -q --config bad.conf "$tr"
awk 'BEGIN { for (i = 1; i < 70; i++) print "max_depth = 3"; print "eta = fast" }' > long.conf
fails "a bad value on line 70 of a config file (after 69 settings) names the file and line" "long.conf:70: parameter 'eta'" \
    "$gbtrain" -q --config long.conf "$tr"
fails "unknown gbpredict option" "unknown option '--colour'" "$gbpredict" --colour=red "$tr" x.model
fails "unreadable input" "cannot open '/no/such/train.csv'" "$gbtrain" -q /no/such/train.csv
long=$(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "m" }')
fails "a model path longer than the system's limit is refused, not cut" "model path is too long \(5000 bytes\)" \
    "$gbtrain" -q --num_round=1 "$tr" "$long"
fails "unwritable model path" "cannot write '/no/such/dir/m.model'" "$gbtrain" -q --num_round=1 "$tr" /no/such/dir/m.model

"$gbtrain" -q --objective=binary:logistic --num_round=2 "$tr" good.model
cp good.model keep.model
fails "a failed training leaves the existing model file alone" "label 2 is not 0 or 1" \
    "$gbtrain" -q --objective=binary:logistic three.csv keep.model
check "(keep.model unchanged)" cmp -s good.model keep.model

head -c 300 good.model > truncated.model
echo "previous predictions" > out.txt
fails "truncated model" "truncated.model:[0-9]+: .*truncated" "$gbpredict" -q "$tr" truncated.model out.txt
check "a failed prediction leaves the existing output file alone" grep -q "previous predictions" out.txt
sed 's/"left": \[1/"left": [9999/' good.model > corrupt.model
fails "corrupted model" "corrupt.model: tree 0: node 0 has children" "$gbpredict" -q "$tr" corrupt.model
printf '{"learner": {"attributes": {}}, "version": [3, 2, 0]}\n' > foreign.model
fails "foreign model" "not a gbt model" "$gbpredict" -q "$tr" foreign.model
printf '1 1:1 40:2\n' > wide.libsvm
fails "data with more features than the model" "41 features but the model only 30" "$gbpredict" -q wide.libsvm good.model
fails "unwritable prediction output" "cannot write '/no/such/dir/p.txt'" "$gbpredict" -q "$tr" good.model /no/such/dir/p.txt
ls | grep -q '\.tmp\.' && leftover=yes || leftover=no
check "no temporary or partial files are left" test "$leftover" = no
done_testing
