#!/bin/sh
# quickstart.sh - sets up and builds gbt, trains a model on a bundled dataset
# (breast cancer, binary), predicts the held-out rows and shows the score.
# It builds what this machine can run: CUDA code for its GPU's architecture
# only, or, without an NVIDIA GPU, the CPU-only library (compiling CUDA code
# for five architectures takes minutes); GBT_CONFIGURE_FLAGS overrides the
# choice.  A tree that is already configured is built as it is.
set -e
cd "$(dirname "$0")/.."
. scripts/deps.sh
if [ -f Makefile ] || [ -n "${GBT_CONFIGURE_FLAGS+set}" ]; then
    gbt_build
else
    choice=$(gbt_build_choice)
    case $choice in
    no-nvcc) gbt_build ;;
    cpu) gbt_build --without-cuda ;;
    *) gbt_build "--with-cuda-arch=$choice" ;;
    esac
fi
out=quickstart-output
mkdir -p "$out"
gbt_step "training 100 rounds on datasets/breast_cancer.train.csv"
./gbtrain --objective=binary:logistic --num_round=100 --eta=0.1 --max_depth=6 \
    --valid=datasets/breast_cancer.test.csv --eval_metric=auc --eval_metric=logloss \
    datasets/breast_cancer.train.csv "$out/breast_cancer.model"
gbt_step "predicting datasets/breast_cancer.test.csv"
./gbpredict --metric=auc --metric=logloss --metric=error \
    datasets/breast_cancer.test.csv "$out/breast_cancer.model" "$out/predictions.txt"
echo "model: $out/breast_cancer.model; predictions (probability of class 1, one per row): $out/predictions.txt"
