#!/bin/sh
# gpu-validate.sh - everything that needs a GPU, run by `make gpu-validate`
# in the build directory:
#   1. the GPU tests (tests/test_backend_gpu, tests/test_cuda_errors_gpu) under
#      compute-sanitizer, memcheck and racecheck;
#   2. every datasets/ set and a 1M-row synthetic set trained with gbtrain
#      on device=cpu and device=cuda, for every objective: the model files
#      compared with cmp, and the predictions of the CPU model on both
#      devices (values, margins, leaf ids; SHAP values and interactions
#      on the small sets) compared bit for bit (gpu_tool compare);
#   3. a short benchmark on the synthetic set (ms per round);
#   4. a summary that can be pasted into a record as it is.
# Exits non-zero if anything failed, or when there is no GPU to validate on.
#
# Environment (set by the make rule): top_srcdir, top_builddir, NVCC, LIBTOOL.
# GPU_VALIDATE_ROWS overrides the synthetic set's 1000000 rows.

set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
rows=${GPU_VALIDATE_ROWS:-1000000}
work=$top_builddir/gpu-validate.tmp
gbtrain=$top_builddir/gbtrain
tool=$top_builddir/tools/gpu_tool
summary=""
failed=0
total=0

say() {
    printf '%s\n' "$*"
}

# record RESULT TEXT: one summary line; RESULT is PASS/identical (good) or anything else
record() {
    total=$((total + 1))
    case $1 in
    PASS | identical) ;;
    *) failed=$((failed + 1)) ;;
    esac
    line=$(printf '%-10s %s' "$1" "$2")
    say "$line"
    summary="$summary$line
"
}

if ! "$gbtrain" --version 2>/dev/null | grep -q '"compiled": true'; then
    say "gpu-validate: this gbt was built without CUDA (configure found no nvcc, or --without-cuda):"
    say "gpu-validate: nothing was validated."
    exit 1
fi
devices=$("$tool" devices 2>&1)
if [ $? -ne 0 ]; then
    say "$devices"
    say "gpu-validate: no CUDA device is usable here (no GPU, or no driver): nothing was validated."
    exit 1
fi
say "$devices"

rm -rf "$work"
mkdir -p "$work" || exit 1

# ---- 1. the GPU tests under compute-sanitizer ------------------------------
sanitizer=""
for c in compute-sanitizer "${NVCC:+$(dirname "$NVCC")/compute-sanitizer}" \
    /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -n "$c" ] || continue
    if command -v "$c" >/dev/null 2>&1; then
        sanitizer=$(command -v "$c")
        break
    fi
done
if [ -z "$sanitizer" ]; then
    record FAIL "compute-sanitizer not found (looked in PATH, next to $NVCC and in /usr/local/cuda)"
else
    for t in test_backend_gpu test_cuda_errors_gpu; do
        for check in memcheck racecheck; do
            log=$work/$t.$check.log
            start=$(date +%s)
            # the test programs link the static core library: no libtool wrapper in between
            "$sanitizer" --tool "$check" --error-exitcode 97 "$top_builddir/tests/$t" >"$log" 2>&1
            rc=$?
            secs=$(($(date +%s) - start))
            oks=$(grep -c '^ok ' "$log")
            skips=$(grep -c '^ok .*# SKIP' "$log")
            notoks=$(grep -c '^not ok ' "$log")
            if [ $rc -eq 0 ] && [ "$notoks" -eq 0 ] && [ "$oks" -gt 0 ]; then
                record PASS "$check $t: $oks ok ($skips skipped), ${secs}s"
            else
                record FAIL "$check $t: exit $rc, $notoks not ok, $oks ok ($skips skipped); see $log"
                grep -E '^not ok|^# |^=========' "$log" | head -20
            fi
        done
    done
fi

# ---- 2. models on cpu and cuda ------------------------------------------------
# train NAME DATA ARGS...: trains on both devices and compares the models and predictions
train() {
    name=$1
    data=$2
    shift 2
    ok=1
    for dev in cpu cuda; do
        if ! "$gbtrain" -q --device=$dev "$@" "$data" "$work/$name.$dev.model" \
            >"$work/$name.$dev.log" 2>&1; then
            record FAIL "$name: gbtrain --device=$dev failed: $(tail -1 "$work/$name.$dev.log")"
            ok=0
        fi
    done
    [ $ok -eq 1 ] || return
    if cmp -s "$work/$name.cpu.model" "$work/$name.cuda.model"; then
        record identical "$name: model ($(wc -c <"$work/$name.cpu.model" | tr -d ' ') bytes)"
    else
        record DIFFERENT "$name: model ($(cmp "$work/$name.cpu.model" "$work/$name.cuda.model" 2>&1 | head -1))"
    fi
    result=$("$tool" compare "$work/$name.cpu.model" "$data" 2>&1)
    case $result in
    *identical) record identical "$name: predictions, leaf ids, SHAP ${result%identical}" ;;
    *) record DIFFERENT "$name: predictions: $result" ;;
    esac
}

ds=$top_srcdir/datasets
train breast_cancer "$ds/breast_cancer.train.csv" --objective=binary:logistic --num_round=30
train breast_cancer-lossguide "$ds/breast_cancer.train.csv" --objective=binary:logistic \
    --num_round=30 --grow_policy=lossguide --max_depth=0 --max_leaves=24 --subsample=0.8 \
    --colsample_bynode=0.7
train digits "$ds/digits.train.csv" --objective=multi:softprob --num_class=10 --num_round=20
train digits-lossguide "$ds/digits.train.csv" --objective=multi:softprob --num_class=10 \
    --num_round=20 --grow_policy=lossguide --max_depth=0 --max_leaves=16 --subsample=0.7 \
    --colsample_bytree=0.8
train diabetes "$ds/diabetes.train.csv" --objective=reg:squarederror --num_round=40
train diabetes-deep "$ds/diabetes.train.csv" --objective=reg:squarederror --num_round=20 \
    --max_depth=10 --min_child_weight=0 --max_bin=512 --alpha=0.5 --colsample_bylevel=0.6
# the objectives of issue 9 (diabetes' target is positive; breast_cancer's 0/1)
train diabetes-poisson "$ds/diabetes.train.csv" --objective=count:poisson --num_round=30
train diabetes-gamma "$ds/diabetes.train.csv" --objective=reg:gamma --num_round=30 --subsample=0.8
train diabetes-tweedie "$ds/diabetes.train.csv" --objective=reg:tweedie --num_round=30 \
    --tweedie_variance_power=1.3 --grow_policy=lossguide --max_depth=0 --max_leaves=16
train diabetes-squaredlog "$ds/diabetes.train.csv" --objective=reg:squaredlogerror --num_round=30
train diabetes-pseudohuber "$ds/diabetes.train.csv" --objective=reg:pseudohubererror --num_round=30 \
    --huber_slope=20
train breast_cancer-hinge "$ds/breast_cancer.train.csv" --objective=binary:hinge --num_round=30
train diabetes-absolute "$ds/diabetes.train.csv" --objective=reg:absoluteerror --num_round=30 \
    --subsample=0.8
train diabetes-quantiles "$ds/diabetes.train.csv" --objective=reg:quantileerror --num_round=30 \
    --quantile_alpha=0.1,0.5,0.9 --grow_policy=lossguide --max_depth=0 --max_leaves=16
train survival-cox "$ds/survival.train.csv" --objective=survival:cox --num_round=30
train survival-aft "$ds/survival.train.csv" --objective=survival:aft --num_round=30 \
    --aft_loss_distribution=logistic --aft_loss_distribution_scale=1.2
train rank-ndcg "$ds/rank.train.libsvm" --objective=rank:ndcg --num_round=30
train rank-pairwise-mean "$ds/rank.train.libsvm" --objective=rank:pairwise --num_round=30 \
    --lambdarank_pair_method=mean --lambdarank_num_pair_per_sample=4 --subsample=0.8
# rank:map takes binary relevance: grades 2 to 4 become 1
awk '{ $1 = ($1 >= 2) ? 1 : 0; print }' "$ds/rank.train.libsvm" >"$work/rank-binary.libsvm"
train rank-map "$work/rank-binary.libsvm" --objective=rank:map --num_round=30 --grow_policy=lossguide \
    --max_depth=0 --max_leaves=24

synth=$work/synthetic.csv
if "$tool" synth "$rows" "$synth"; then
    train "synthetic-${rows}" "$synth" --objective=binary:logistic --num_round=20 --max_depth=8
    train "synthetic-${rows}-lossguide" "$synth" --objective=binary:logistic --num_round=10 \
        --grow_policy=lossguide --max_depth=0 --max_leaves=255 --subsample=0.5
    train "synthetic-${rows}-poisson" "$synth" --objective=count:poisson --num_round=10 --max_depth=8
    # ---- 3. benchmark ---------------------------------------------------------
    bench=$("$tool" bench "$synth" 50 objective=binary:logistic max_depth=8 verbosity=0 2>&1)
    case $bench in
    bench:*identical) record PASS "$bench" ;;
    *) record FAIL "$bench" ;;
    esac
else
    record FAIL "could not write the synthetic set $synth"
fi

# ---- 4. summary -----------------------------------------------------------------
say ""
say "==== gpu-validate summary ===="
say "gbt $("$gbtrain" --version | head -1 | sed 's/^gbtrain //')"
say "$("$gbtrain" --version | tail -1)"
if command -v git >/dev/null 2>&1 && git -C "$top_srcdir" rev-parse HEAD >/dev/null 2>&1; then
    say "commit $(git -C "$top_srcdir" rev-parse HEAD)"
fi
say "$devices"
if command -v nvidia-smi >/dev/null 2>&1; then
    say "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
fi
printf '%s' "$summary"
say "result: $((total - failed)) of $total passed, $failed failed"
say "=============================="
[ $failed -eq 0 ] || exit 1
rm -rf "$work"
exit 0
