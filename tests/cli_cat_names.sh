#!/bin/sh
# cli_cat_names.sh - a model trained in Python on pandas categories
# predicts a CSV file of category names with gbpredict exactly as Python
# predicts the same rows as a DataFrame: the names coded by the model's
# list (the library's gbt_booster_read_data), an unseen name and a missing
# one included, for string and integer categories.  gbtrain trains the
# same model from the frame's binary Dataset (save_binary keeps the names)
# and from a CSV file of names (its categories sorted, as pandas sorts a
# column of strings).
. "${top_srcdir:-.}/tests/tap.sh"
need_python_gbt numpy pandas
$python_gbt - "$work" <<'PY'
import sys
import numpy as np
import pandas as pd
import gbt
w = sys.argv[1]
rng = np.random.default_rng(3)
n = 300
colour = rng.choice(["red", "green", "blue", "violet"], n)
size = rng.choice([10, 2, 7], n)
x = rng.normal(size=n).astype(np.float32)
y = ((colour == "red") | (colour == "blue")).astype(np.float32) + 0.3 * x + 0.2 * (size == 7)
# categories in an order of their own (not sorted): codes are positions in these lists
df = pd.DataFrame({"x": x, "colour": pd.Categorical(colour, categories=["violet", "red", "green", "blue"]),
                   "size": pd.Categorical(size, categories=[10, 2, 7])})
b = gbt.train({"max_depth": 3, "nthread": 1}, gbt.Dataset(df, y, enable_categorical=True), 5)
b.save_model(f"{w}/cat.model", format="gbt")
test = pd.DataFrame({"x": np.array([0.1, -1, 0.5, 2, 0, 1, 0.3], np.float32),
                     "colour": ["blue", "red", "pink", "violet", None, "green", "red"],
                     "size": [7, 10, 2, 5, 7, None, 2]})
test.to_csv(f"{w}/test.csv", index=False, float_format="%.9g")
frame = test.copy()
frame["colour"] = pd.Categorical(frame["colour"])
frame["size"] = pd.Categorical(frame["size"].astype("Int64"))
np.savetxt(f"{w}/python.txt", b.predict(gbt.Dataset(frame, enable_categorical=True)), fmt="%.9g")
gbt.Dataset(df, y, enable_categorical=True).save_binary(f"{w}/train.bin")
other = df.copy()
other["colour"] = other["colour"].cat.reorder_categories(["red", "violet", "green", "blue"])
gbt.Dataset(other, y, enable_categorical=True).save_binary(f"{w}/other.bin")
# a CSV file of names, and the frame pandas reads from it with the column as categories (sorted)
pd.DataFrame({"y": y, "x": x, "colour": colour}).to_csv(f"{w}/names.csv", index=False, float_format="%.9g")
read = pd.read_csv(f"{w}/names.csv", dtype={"colour": "category", "x": np.float32})
b2 = gbt.train({"max_depth": 3, "nthread": 1}, gbt.Dataset(read[["x", "colour"]], read["y"],
                                                        enable_categorical=True), 5)
test2 = frame[["x", "colour"]].copy()
np.savetxt(f"{w}/python2.txt", b2.predict(gbt.Dataset(test2, enable_categorical=True)), fmt="%.9g")
test[["x", "colour"]].to_csv(f"{w}/test2.csv", index=False, float_format="%.9g")
PY
check "Python trained on a DataFrame of categories" test -s "$work/cat.model"
check "gbpredict reads category names by the model's list" $gbpredict -q --header --label_column=-1 \
    "$work/test.csv" "$work/cat.model" "$work/gbpredict.txt"
check "its predictions are Python's for the same rows (unseen and missing names included)" \
    python3 -c "import numpy as np, sys; a = np.loadtxt(sys.argv[1], dtype=np.float32); b = np.loadtxt(sys.argv[2], dtype=np.float32); sys.exit(0 if a.shape == (7,) and (a == b).all() else 1)" \
    "$work/python.txt" "$work/gbpredict.txt"
# codes where the model names its categories: refused (not read as unseen names), nothing written
printf 'x,colour,size\n0.1,2,7\n' > "$work/codes.csv"
fails "a code in a column of named categories is refused" "codes.csv:2: column 1 holds the number '2'" \
    $gbpredict -q --header --label_column=-1 "$work/codes.csv" "$work/cat.model" "$work/codes.txt"
check "nothing is written for it" test ! -e "$work/codes.txt"
same() {
    python3 -c "import numpy as np, sys; a = np.loadtxt(sys.argv[1], dtype=np.float32); b = np.loadtxt(sys.argv[2], dtype=np.float32); sys.exit(0 if a.shape == (7,) and (a == b).all() else 1)" "$1" "$2"
}
check "gbtrain trains on the frame's binary Dataset" $gbtrain -q --max_depth=3 --nthread=1 --num_round=5 \
    "$work/train.bin" "$work/bin.model"
$gbpredict -q --header --label_column=-1 "$work/test.csv" "$work/bin.model" "$work/bin.txt"
check "the binary Dataset kept the names: its model predicts the names as Python's" same "$work/python.txt" \
    "$work/bin.txt"
fails "a binary Dataset whose categories are in another order is refused" \
    "other.bin: the categories of feature 1 are not the model's" \
    $gbpredict -q "$work/other.bin" "$work/bin.model" "$work/other.txt"
check "gbtrain trains on a CSV file of names" $gbtrain -q --header --categorical_feature=name:colour \
    --max_depth=3 --nthread=1 --num_round=5 "$work/names.csv" "$work/names.model"
check "its categories are the names sorted" grep -q '"feature_categories": "{\\"1\\":\[\\"blue\\",\\"green\\",\\"red\\",\\"violet\\"\]}"' \
    "$work/names.model"
$gbpredict -q --header --label_column=-1 "$work/test2.csv" "$work/names.model" "$work/names.txt"
check "it predicts as Python's model trained on pandas' reading of the file" same "$work/python2.txt" \
    "$work/names.txt"
printf 'y,x,colour\n1,0.5,red\n0,0.1,3\n' > "$work/mixed.csv"
fails "a number among names is refused with its line" "mixed.csv:3: column 2 holds the number 3" \
    $gbtrain -q --header --categorical_feature=name:colour "$work/mixed.csv" "$work/mixed.model"
rm -rf "$work"
done_testing
