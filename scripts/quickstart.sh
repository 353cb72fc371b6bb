#!/bin/sh
# quickstart.sh - sets up and builds gbt, trains a model on a bundled dataset
# (breast cancer, binary), predicts the held-out rows and shows the score.
set -e
cd "$(dirname "$0")/.."
. scripts/deps.sh
gbt_build
out=quickstart-output
mkdir -p "$out"
./gbtrain --objective=binary:logistic --num_round=100 --eta=0.1 --max_depth=6 \
    --valid=datasets/breast_cancer.test.csv --eval_metric=auc --eval_metric=logloss \
    datasets/breast_cancer.train.csv "$out/breast_cancer.model"
./gbpredict --metric=auc --metric=logloss --metric=error \
    datasets/breast_cancer.test.csv "$out/breast_cancer.model" "$out/predictions.txt"
echo "model: $out/breast_cancer.model; predictions (probability of class 1, one per row): $out/predictions.txt"
