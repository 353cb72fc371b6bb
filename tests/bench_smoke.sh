#!/bin/sh
# tests/bench_smoke.sh - the benchmark harness works end to end (TAP).
#
# Runs bench/run.py at a tiny size (a few hundred rows, 3 rounds, one
# thread) for gbt and for every peer that is installed, and checks that the
# table has a row with parseable numbers for each workload and library.
# It says nothing about speed.  Writes only under a temporary directory, so
# it also runs from a read-only source tree (make distcheck).
: "${top_srcdir:=.}"
: "${top_builddir:=.}"

if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 not found"
    exit 0
fi
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP numpy is not installed"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gbt-bench-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

python3 -B "$top_srcdir/bench/run.py" --bindir "$top_builddir/bench" \
    --workdir "$tmp/work" --results-dir "$tmp/results" \
    --scale 0.0005 --rounds 3 --threads 1 --repeat 1 --latency-calls 20 \
    >"$tmp/table.md" 2>"$tmp/log.txt"
rc=$?

python3 -B - "$tmp" "$rc" <<'PY'
import glob, json, os, re, sys

tmp, rc = sys.argv[1], int(sys.argv[2])
n = 0
failed = 0

def ok(cond, what):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))
    failed += not cond
    return cond

def diag(text):
    for line in text.splitlines():
        print("# " + line)

table = open(os.path.join(tmp, "table.md")).read()
if not ok(rc == 0, "run.py exits 0"):
    diag(open(os.path.join(tmp, "log.txt")).read()[-3000:])
    diag(table[-2000:])

lines = [l for l in table.splitlines() if l.startswith("|")]
head = [c.strip() for c in lines[0].strip("|").split("|")] if lines else []
ok("library" in head and "train s" in head and "test metric" in head, "the table has a header")
rows = []
for l in lines[2:]:
    cells = [c.strip() for c in l.strip("|").split("|")]
    if len(cells) == len(head):
        rows.append(dict(zip(head, cells)))

def number(text):
    try:
        return float(text)
    except ValueError:
        return None

# A peer that run.py found not importable is skipped; every other one must
# have its rows.
md = glob.glob(os.path.join(tmp, "results", "*.md"))
runs = []
if md and os.path.exists(md[0][:-3] + ".json"):
    runs = json.load(open(md[0][:-3] + ".json"))["results"]
libs = ["gbt"]
for lib in ("xgboost", "lightgbm"):
    mine = [r for r in runs if r.get("library") == lib]
    if mine and all(r.get("skipped", "").startswith("not importable") for r in mine):
        n += 1
        print("ok %d # SKIP %s: %s" % (n, lib, mine[0]["skipped"]))
    else:
        libs.append(lib)
for w in ("W1", "W2", "W3", "W4", "W5"):
    for lib in libs:
        r = [x for x in rows if x["workload"].split()[0] == w and x["library"].split()[0] == lib]
        if not ok(len(r) == 1, "%s %s: one row" % (w, lib)):
            continue
        r = r[0]
        nums = [number(r[c]) for c in ("construct s", "train s", "ms/round", "peak host MiB")]
        ok(all(v is not None and v >= 0 for v in nums) and nums[1] > 0 and nums[3] > 0,
           "%s %s: times and memory are numbers (%s)" % (w, lib, ", ".join(r[c] for c in
           ("construct s", "train s", "ms/round", "peak host MiB"))))
        m = re.match(r"^(auc|mlogloss) (\S+)$", r["test metric"])
        v = number(m.group(2)) if m else None
        want = "mlogloss" if w == "W4" else "auc"
        ok(m is not None and m.group(1) == want and v is not None and v == v and v > 0,
           "%s %s: test metric is %s (%s)" % (w, lib, want, r["test metric"]))
        if w == "W5":
            ok(number(r["predict Mrows/s"]) is not None and number(r["predict Mrows/s"]) > 0
               and number(r["1-row µs"]) is not None,
               "%s %s: prediction throughput and latency (%s, %s)" % (w, lib, r["predict Mrows/s"], r["1-row µs"]))
        if lib != "gbt":
            ok(re.match(r"^\d+\.\d+x ", r["gbt speed-up"]) is not None,
               "%s %s: a speed-up ratio (%s)" % (w, lib, r["gbt speed-up"]))

ok(len(md) == 1, "one result file written")
if md:
    text = open(md[0]).read()
    ok("- commit: " in text and "- CPU: " in text and "- date: " in text and "| W5 " in text,
       "the result file names the commit, the machine and the date and holds the table")
    ok(len(runs) == 15, "the JSON results have one entry per workload and library")
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
