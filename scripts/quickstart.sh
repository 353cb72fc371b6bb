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
# The compute capabilities of this machine's NVIDIA GPUs ("90" for 9.0), or nothing.
gpu_archs() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' |
        grep -E '^[0-9]+$' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
if [ -f Makefile ] || [ -n "${GBT_CONFIGURE_FLAGS+set}" ]; then
    gbt_build
elif ! gbt_have_nvcc; then
    gbt_step "no nvcc here: building the CPU-only library"
    gbt_build
elif archs=$(gpu_archs) && [ -n "$archs" ]; then
    gbt_step "NVIDIA GPU of compute capability $archs: building CUDA code for it only"
    gbt_build "--with-cuda-arch=$archs"
else
    gbt_step "no NVIDIA GPU here: building the CPU-only library (--without-cuda; CUDA code takes minutes)"
    gbt_step "for GPUs elsewhere: ./configure --with-cuda-arch=\"75 80 86 89 90\" && make clean && make"
    gbt_build --without-cuda
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
