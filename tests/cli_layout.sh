#!/bin/sh
# cli_layout.sh - issue 27: the model records how its training file was laid
# out (label column, header, delimiter) and gbpredict reads files that way
# unless a flag says otherwise; hints in the flags' vocabulary; a
# semicolon-separated file gets the delimiter hint; XGBoost's data URIs
# (PATH?format=csv&label_column=0, PATH#CACHE).
. "${top_srcdir:-.}/tests/tap.sh"
cd "$work" || exit 1

tr=$data/breast_cancer.train.csv
te=$data/breast_cancer.test.csv
# the label (column 0) moved last; features only; a header line; ';' between fields
last() { awk -F, -v OFS=, '{ l = $1; for (i = 1; i < NF; i++) $i = $(i + 1); $NF = l; print }' "$1"; }
last "$tr" >last.train.csv
last "$te" >last.test.csv
cut -d, -f2- "$te" >features.test.csv
names() { awk 'BEGIN { printf "y"; for (i = 0; i < 30; i++) printf ",f%d", i; print "" }'; }
{ names; cat "$tr"; } >head.train.csv
{ names; cat "$te"; } >head.test.csv
tr , ';' <"$tr" >semi.train.csv
tr , ';' <"$te" >semi.test.csv

"$gbtrain" -q --objective=binary:logistic --num_round=5 "$tr" first.model
"$gbpredict" -q "$te" first.model first.txt
# the reference: the label-first file and model, read as gbt always read them
"$gbtrain" -q --objective=binary:logistic --num_round=5 --label_column=30 last.train.csv last.model
check "the model records the training file's label column 30" \
    grep -q '"training_file": {"format": "csv", "delimiter": ",", "header": 0, "label_column": 30}' last.model
check "gbmodel info shows it" sh -c '"$0" info last.model | grep -qx "training_file: format=csv,header=0,label_column=30"' \
    "$builddir/gbmodel"
"$gbpredict" -q last.test.csv last.model last.txt
check "gbpredict reads a 31-column file as the training file was: label in column 30 (the same predictions)" \
    cmp -s last.txt first.txt
"$gbpredict" -q features.test.csv last.model features.txt
check "a 30-column file has no label: the same predictions" cmp -s features.txt first.txt
"$gbpredict" -q --metric=logloss last.test.csv last.model 2>last.metric >/dev/null
"$gbpredict" -q --metric=logloss "$te" first.model 2>first.metric >/dev/null
check "--metric takes the labels from column 30 (the label-first file's logloss)" cmp -s last.metric first.metric
"$gbpredict" -q --label_column=0 last.test.csv last.model flag.txt
check "--label_column wins over the model (column 0 read as the label: other predictions)" \
    sh -c '! cmp -s flag.txt first.txt'
paste -d, last.test.csv features.test.csv | cut -d, -f1-32 >wide.csv
fails "a file of neither 30 nor 31 columns is refused, naming the label column and where it came from" \
    "32 fields, .*30 \(features only\) or 31 \(the label in column 30\).*--label_column=30" \
    "$gbpredict" -q wide.csv last.model

"$gbtrain" -q --objective=binary:logistic --num_round=5 --header head.train.csv head.model
check "the model records the header" grep -q '"header": 1, "label_column": 0}' head.model
"$gbpredict" -q head.test.csv head.model head.txt
check "gbpredict skips the header line of a file like the training file's, without --header" \
    cmp -s head.txt first.txt
fails "a file without the header, against a model of a file with one: refused, saying why" \
    "feature names differ.*--header=1" "$gbpredict" -q "$te" head.model
"$gbpredict" -q --header=0 --validate_features=0 features.test.csv head.model noheader.txt
check "--header=0 wins over the model" cmp -s noheader.txt first.txt

# an old model, saved before models recorded their training file: read as before (label first)
grep -v '"training_file"' first.model >old.model
"$gbpredict" -q "$te" old.model old.txt
check "a model without training_file loads and reads files as before" cmp -s old.txt first.txt

# hints in the flags' vocabulary
fails "a header line without --header: the hint names --header, not header=1" \
    "if line 1 names the columns, use --header\)$" "$gbtrain" -q head.train.csv h.model
fails "a ';'-separated file: the delimiter hint, not the header hint" "separated by ';'.*--delimiter=';'" \
    "$gbtrain" -q semi.train.csv s.model
check "(no header hint there)" sh -c "! grep -q header '$work/.fails.err'"
fails "--format=csv on a ';'-separated file: the delimiter hint too" \
    "not a number \(fields separated by ';'\? --delimiter=';' reads them\)" \
    "$gbtrain" -q --format=csv semi.train.csv s.model
"$gbtrain" -q --objective=binary:logistic --num_round=5 --delimiter=';' semi.train.csv semi.model
check "--delimiter=';' trains the same model" sh -c 'grep -v training_file semi.model | cmp -s - old.model'
check "the model records the delimiter" grep -q '"delimiter": ";"' semi.model
"$gbpredict" -q semi.test.csv semi.model semi.txt
check "gbpredict reads a ';'-separated file with the model's delimiter" cmp -s semi.txt first.txt
fails "--delimiter takes ; | or :" "delimiter.*expects ; \| or :" "$gbtrain" -q --delimiter=x "$tr" x.model

# XGBoost's data URIs
"$gbtrain" -q --objective=binary:logistic --num_round=5 "last.train.csv?format=csv&label_column=30" uri.model
check "TRAIN_FILE?format=csv&label_column=30 trains the model of --label_column=30" cmp -s uri.model last.model
printf '1\n' | awk '{ for (i = 0; i < 427; i++) print 1 }' >last.train.csv.weight
"$gbtrain" --num_round=1 "last.train.csv?format=csv&label_column=30" w.model 2>w.err
check "its side files are the file's, and named so" grep -q "weights from last.train.csv.weight\$" w.err
fails "nor is the file itself replaced by the model, even with --force" "is the input file 'last.train.csv'" \
    "$gbtrain" -q --force "last.train.csv?format=csv&label_column=30" last.train.csv
rm last.train.csv.weight
"$gbpredict" -q "last.test.csv?format=csv&label_column=30" last.model uri.txt 2>uri.err
check "DATA_FILE?format=csv&label_column=30 predicts" cmp -s uri.txt first.txt
"$gbpredict" -q "last.test.csv?format=csv" last.model model_layout.txt
check "DATA_FILE?format=csv: what the URI leaves out (its label column) comes from the model" \
    cmp -s model_layout.txt first.txt

"$gbpredict" "last.test.csv#dtest.cache" last.model cache.txt 2>cache.err
check "DATA_FILE#CACHE: read in batches (one here), read as the model's training file was: the same output" \
    sh -c 'cmp -s cache.txt first.txt && grep -q "rows predicted in 1 batch$" cache.err'
fails "a URI option gbt does not know is named" "unknown option 'cache_prefix'" \
    "$gbpredict" -q "last.test.csv?format=csv&cache_prefix=x" last.model
cp "$te" 'odd?name.csv'
"$gbpredict" -q 'odd?name.csv' first.model odd.txt
check "a file whose name holds '?' is that file" cmp -s odd.txt first.txt

done_testing
