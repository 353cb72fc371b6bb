#!/bin/sh
# costmodel-calibrate.sh - the cost model of bench/costmodel.py run on the
# kernels that a GPU last timed, against that time:
#
#   scripts/costmodel-calibrate.sh      # prints, last:
#   calibration: f136890 W1 10M modelled X ms, measured 8.8 ms
#
# docs/gpu-runs/2026-11-23-h100.md measured a W1 round at 10M rows on an
# H100 at 8.8 ms with the kernels of commit f136890.  That commit has no
# counting build; 9a017c8, the commit that added it, has the same kernels
# but for gradient.cu (a max hook for distributed training: a few
# per-row reads more in the gradient kernels), so its tree is taken: the
# source of 9a017c8 (git archive, in $GBT_CALIBRATE_DIR, default
# /tmp/gbt-calibrate) with this tree's counters (tests/cuda-emu/cost.cc, cost.h,
# copied to that tree's cuda/emu/:
# the same interface, plus each kernel's dynamic shared memory) is built
# (make cuda-emu-cost) and emulated on W1's shape by this tree's
# bench/costmodel.py, whose model (constants, latency, occupancy) is the
# one under test.  Where nvcc is present, the per-round kernels of that
# tree are compiled for sm_90 to give the model their registers (ptxas);
# without it the registers are not counted in the occupancy.  Every
# figure is modelled but the 8.8 ms.  On 2 cores shared with other work:
# about 10 minutes of building and 30 of emulation; a second run reuses the
# build and the nvcc reports.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${GBT_CALIBRATE_DIR:-/tmp/gbt-calibrate}
commit=9a017c8
measured_ms=8.8
if ! git -C "$top" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "costmodel-calibrate.sh: commit $commit is not in $top's history (a git checkout is needed)" >&2
    exit 2
fi
mkdir -p "$work"
if [ ! -f "$work/configure.ac" ]; then
    git -C "$top" archive "$commit" | tar -x -C "$work"
fi
for f in cost.cc cost.h; do
    cmp -s "$top/tests/cuda-emu/$f" "$work/cuda/emu/$f" || cp "$top/tests/cuda-emu/$f" "$work/cuda/emu/$f"
done
cd "$work"
if [ ! -f Makefile ]; then
    autoreconf -fi >autoreconf.log 2>&1
    ./configure -q --without-cuda >configure.log 2>&1
fi
make -s cuda-emu-cost bench/gen_workload >make.log 2>&1 || { tail -20 make.log >&2; exit 1; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
    for f in histogram partition split segments gradient leaf; do
        [ -s "cuda/$f.ptxas" ] && continue
        "$nvcc" -O3 -std=c++17 -arch=sm_90 -fmad=false -cubin --resource-usage -Iinclude -Isrc -Icuda -I. \
            -DHAVE_CONFIG_H -DGBT_CUDA_ARCHS_JSON='"90"' -o /dev/null "cuda/$f.cu" 2>"cuda/$f.ptxas.tmp" &&
            mv "cuda/$f.ptxas.tmp" "cuda/$f.ptxas"
    done
fi
python3 "$top/bench/costmodel.py" --builddir "$work" --ptxas "$work/cuda" --workdir "$work/bench/work" \
    --json "$work/calibration.json" >"$work/calibration.md"
cat "$work/calibration.md"
python3 - "$work/calibration.json" "$measured_ms" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["modelled_round_s"] * 1e3
print("calibration: f136890 W1 10M modelled %.2f ms, measured %s ms (measured / modelled %.2f)"
      % (m, sys.argv[2], float(sys.argv[2]) / m))
PY
