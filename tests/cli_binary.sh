#!/bin/sh
# cli_binary.sh - the tools take a binary Dataset saved from Python
# (Dataset.save_binary) wherever they take a data file: gbtrain's model is
# byte for byte the one Python trains from the original arrays, gbpredict
# predicts it as it predicts the same rows from a CSV file; a file of the
# old format (version 1, tests/fixtures/) trains; a cut file is a clean error.
. "${top_srcdir:-.}/tests/tap.sh"
need_python_gbt numpy
$python_gbt - "$work" <<'PY'
import sys
import numpy as np
import gbt
w = sys.argv[1]
rng = np.random.default_rng(7)
X = rng.normal(size=(300, 4)).astype(np.float32)
X[::7, 2] = np.nan
y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.float32)
d = gbt.Dataset(X, y, weight=np.where(X[:, 3] > 0, 2.0, 1.0), feature_names=["a", "b", "c", "d"])
d.save_binary(f"{w}/train.bin")
params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "nthread": 1}
gbt.train(params, d, num_boost_round=4).save_model(f"{w}/py.model", format="gbt")
with open(f"{w}/rows.csv", "w") as f:
    f.write("y,a,b,c,d\n")
    for label, row in zip(y, X):
        f.write(",".join(["%g" % label] + ["" if np.isnan(v) else "%.9g" % v for v in row]) + "\n")
PY
check "Python saved a binary Dataset" test -s "$work/train.bin"
check "gbtrain trains on it" $gbtrain -q --num_round=4 --objective=binary:logistic --max_depth=3 --eta=0.3 \
    --nthread=1 "$work/train.bin" "$work/cli.model"
check "the model is Python's from the original arrays, byte for byte" cmp "$work/py.model" "$work/cli.model"
$gbpredict -q "$work/train.bin" "$work/cli.model" "$work/p_bin.txt"
$gbpredict -q --header "$work/rows.csv" "$work/cli.model" "$work/p_csv.txt"
check "gbpredict predicts the binary file as the same rows in a CSV file" cmp "$work/p_bin.txt" "$work/p_csv.txt"
check "gbtrain trains on a version-1 file of the old Python format" $gbtrain -q --num_round=2 \
    "$srcdir/tests/fixtures/dense_v1.buffer" "$work/v1.model"
fails "a binary dataset given as the model is named" "train.bin: a gbt binary dataset.*not a model" \
    $gbpredict -q "$work/train.bin" "$work/train.bin" "$work/p.txt"
head -c 100 "$work/train.bin" > "$work/cut.bin"
fails "a cut binary file is a clean error naming it" "cut.bin: truncated" \
    $gbtrain -q "$work/cut.bin" "$work/cut.model"
rm -rf "$work"
done_testing
