#!/usr/bin/env python3
"""gbt's benchmark suite: one command, one markdown table.

    python3 bench/run.py                       # every workload, every library, 2 threads
    python3 bench/run.py --scale 0.05          # the same at 5% of the rows (quick)
    python3 bench/run.py --gpu-suite           # W1 and W3 at 10M rows and W5, on CUDA
    python3 bench/run.py --check-identity      # also: gbt's CPU and CUDA models byte for byte

Generates the workloads (cached under --workdir), runs gbt (bench/gbt_bench)
and every installed peer (bench/peers.py: XGBoost, LightGBM) on the same data
with the same parameters and thread count, each in its own process, prints
the table and writes it, with the machine, the commit and the date, to
bench/results/.  See bench/README.md.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)

LIBS = ["gbt", "xgboost", "lightgbm", "gbt-python"]
# gbt-python (the Python package over the same libgbt: the wrapper's cost)
# runs when asked for: --libs gbt,gbt-python,xgboost,lightgbm.
DEFAULT_LIBS = ["gbt", "xgboost", "lightgbm"]

# Rows of each generated data set at scale 1 (training, test).
KIND_ROWS = {"higgs": (1000000, 100000), "airline": (1000000, 100000), "multiclass": (500000, 50000)}

# The workloads: data, growth policy, depth/leaves, rounds.
WORKLOADS = {
    "W1": dict(kind="higgs", policy="depthwise", depth=8, rounds=100,
               title="dense binary, depthwise d8"),
    "W2": dict(kind="higgs", policy="lossguide", leaves=255, rounds=100,
               title="dense binary, lossguide 255 leaves"),
    "W3": dict(kind="airline", policy="depthwise", depth=10, rounds=100,
               title="sparse one-hot binary, depthwise d10"),
    "W4": dict(kind="multiclass", policy="depthwise", depth=6, rounds=100, num_class=10,
               title="dense 10-class, depthwise d6"),
    "W5": dict(kind="higgs", policy="depthwise", depth=8, rounds=500, predict=True, train_fraction=0.2,
               title="prediction, {rounds} trees d8"),
}
COMMON = dict(eta=0.1, max_bin=256, min_child_weight=1.0, reg_lambda=1.0)

GPU_SUITE = [("W1", 10.0), ("W3", 10.0), ("W5", 1.0)]


# ---------------------------------------------------------------- parameters

def lib_params(lib, w, threads, device):
    """The library's own parameters for workload w (the mapping of bench/README.md)."""
    multi = w["kind"] == "multiclass"
    lossguide = w["policy"] == "lossguide"
    if lib in ("gbt", "gbt-python", "xgboost"):
        p = {"objective": "multi:softprob" if multi else "binary:logistic",
             "eta": COMMON["eta"], "max_bin": COMMON["max_bin"], "tree_method": "hist",
             "min_child_weight": COMMON["min_child_weight"], "lambda": COMMON["reg_lambda"],
             "nthread": threads, "device": device}
        if multi:
            p["num_class"] = w["num_class"]
        if lossguide:
            p.update(grow_policy="lossguide", max_leaves=w["leaves"], max_depth=0)
        else:
            p.update(grow_policy="depthwise", max_depth=w["depth"])
        if lib == "xgboost":
            p["verbosity"] = 0
        return p
    if lib == "lightgbm":
        p = {"objective": "multiclass" if multi else "binary",
             "learning_rate": COMMON["eta"], "max_bin": COMMON["max_bin"],
             "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": COMMON["min_child_weight"],
             "lambda_l2": COMMON["reg_lambda"], "num_threads": threads,
             "device_type": device, "verbose": -1}
        if multi:
            p["num_class"] = w["num_class"]
        if lossguide:
            p.update(num_leaves=w["leaves"], max_depth=-1)
        else:
            p.update(num_leaves=2 ** w["depth"] - 1, max_depth=w["depth"])
        return p
    raise ValueError(lib)


# ---------------------------------------------------------------- processes

class GpuMemoryPoller:
    """Samples the GPU's used memory with nvidia-smi while a benchmark runs."""

    def __init__(self, interval=0.2):
        self.interval = interval
        self.peak = None
        self.base = None
        self._stop = threading.Event()
        self._thread = None

    @staticmethod
    def used_mib():
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                                  "-i", "0"], capture_output=True, text=True, timeout=10)
            return float(out.stdout.strip().splitlines()[0])
        except (OSError, ValueError, IndexError, subprocess.SubprocessError):
            return None

    def start(self):
        self.base = self.used_mib()
        if self.base is None:
            return self
        self.peak = self.base
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(self.interval):
            v = self.used_mib()
            if v is not None and v > self.peak:
                self.peak = v

    def stop(self):
        if self._thread is None:
            return None
        self._stop.set()
        self._thread.join()
        return self.peak - self.base


def run_measured(cmd, env, timeout, poll_gpu):
    """Runs cmd; returns (exit code, stdout, stderr, peak RSS MiB of the process, peak GPU MiB, wall s)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        poller = GpuMemoryPoller().start() if poll_gpu else None
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        timer = None
        if timeout:
            timer = threading.Timer(timeout, proc.kill)
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if timer:
            timer.cancel()
        wall = time.perf_counter() - t0
        gpu = poller.stop() if poller else None
        out.seek(0)
        err.seek(0)
        return (proc.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                usage.ru_maxrss / 1024.0, gpu, wall)


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def tail(text, n=3):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return " / ".join(lines[-n:])


# ---------------------------------------------------------------- workloads

class Suite:
    def __init__(self, args):
        self.args = args
        self.bindir = args.bindir
        self.env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        self.gen_format = None

    def binary(self, name):
        return os.path.join(self.bindir, name)

    def ensure_binaries(self):
        need = [self.binary("gen_workload"), self.binary("gbt_bench")]
        if self.args.build:
            builddir = self.args.builddir
            if os.path.exists(os.path.join(builddir, "Makefile")):
                log("building bench/gen_workload and bench/gbt_bench in %s" % builddir)
                r = subprocess.run(["make", "-C", builddir, "--no-print-directory", "-s",
                                    "bench/gen_workload", "bench/gbt_bench"])
                if r.returncode != 0:
                    die("make failed; configure and build gbt first (see bench/README.md)")
        for b in need:
            if not os.access(b, os.X_OK):
                die("%s not found: configure and build gbt first (./configure && make), "
                    "or name the directory holding it with --bindir" % b)
        out = subprocess.run([self.binary("gen_workload"), "--version"], capture_output=True, text=True)
        self.gen_format = out.stdout.split()[-1] if out.returncode == 0 and out.stdout.strip() else "0"

    def rows(self, kind, scale):
        tr, te = KIND_ROWS[kind]
        return max(10, int(round(tr * scale))), max(10, int(round(te * scale)))

    def dataset(self, kind, scale):
        """The directory of a generated data set, generating it when it is not cached."""
        rows, test_rows = self.rows(kind, scale)
        name = "%s-%d-%d-seed%d-f%s" % (kind, rows, test_rows, self.args.seed, self.gen_format)
        d = os.path.join(self.args.workdir, name)
        if os.path.exists(os.path.join(d, "meta.json")):
            return d
        os.makedirs(self.args.workdir, exist_ok=True)
        tmp = d + ".tmp%d" % os.getpid()
        shutil.rmtree(tmp, ignore_errors=True)
        log("generating %s: %d training and %d test rows" % (kind, rows, test_rows))
        t0 = time.perf_counter()
        r = subprocess.run([self.binary("gen_workload"), kind, tmp, "--rows", str(rows),
                            "--test-rows", str(test_rows), "--seed", str(self.args.seed)])
        if r.returncode != 0:
            die("gen_workload %s failed" % kind)
        shutil.rmtree(d, ignore_errors=True)
        os.rename(tmp, d)
        log("  %.1f s" % (time.perf_counter() - t0))
        return d

    def command(self, lib, wid, w, data, device, rounds, save=None):
        a = self.args
        with open(os.path.join(data, "meta.json")) as f:
            meta = json.load(f)
        params = lib_params(lib, w, a.threads, device)
        extra = []
        if w.get("train_fraction"):
            extra += ["--train-rows", str(max(10, int(round(meta["rows"] * w["train_fraction"]))))]
        if w.get("predict"):
            extra += ["--predict", "--repeat", str(a.repeat), "--latency-calls", str(a.latency_calls)]
        if lib == "gbt":
            cmd = [self.binary("gbt_bench"), "--data", data, "--rounds", str(rounds)] + extra
            cmd += ["%s=%s" % (k, fmt_param(v)) for k, v in params.items()]
            if save:
                cmd += ["--save", save]
            return cmd
        return [sys.executable, "-B", os.path.join(HERE, "peers.py"), "--lib", lib, "--data", data,
                "--rounds", str(rounds), "--threads", str(a.threads),
                "--params", json.dumps(params)] + extra

    def run_one(self, lib, wid, w, data, device, rounds, save=None):
        cmd = self.command(lib, wid, w, data, device, rounds, save)
        rc, out, err, rss, gpu, wall = run_measured(cmd, self.env, self.args.timeout,
                                                    device != "cpu" and shutil.which("nvidia-smi"))
        res = last_json(out) or {}
        res.setdefault("library", lib)
        res["workload"] = wid
        res["wall_s"] = wall
        res["peak_rss_mib"] = rss  # the process's peak, from wait4
        if gpu is not None:
            res["peak_gpu_mib"] = gpu
        if rc == 3 and "skipped" in res:
            return res
        if rc != 0 and "error" not in res:
            res["error"] = "exit status %d: %s" % (rc, tail(err) or tail(out) or "no output")
        if rc != 0 and self.args.timeout and wall >= self.args.timeout:
            res["error"] = "timed out after %d s" % self.args.timeout
        return res


def fmt_param(v):
    if isinstance(v, float) and v == int(v):
        return str(int(v)) if abs(v) >= 1 else repr(v)
    return str(v)


# ---------------------------------------------------------------- machine

def read_first(path, key):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine_info():
    info = {"host": socket.gethostname().split(".")[0], "os": platform.platform(),
            "cpu": read_first("/proc/cpuinfo", "model name") or platform.processor() or "unknown",
            "cores": os.cpu_count(), "python": platform.python_version()}
    try:
        with open("/proc/loadavg") as f:
            info["load_before"] = " ".join(f.read().split()[:3])
    except OSError:
        pass
    mem = read_first("/proc/meminfo", "MemTotal")
    if mem:
        info["memory_gib"] = round(int(mem.split()[0]) / 1048576.0, 1)
    info["gpus"] = []
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                                  "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
            for line in out.stdout.strip().splitlines():
                parts = [p.strip() for p in line.split(",")]
                if len(parts) == 3:
                    info["gpus"].append({"name": parts[0], "driver": parts[1], "memory": parts[2]})
        except (OSError, subprocess.SubprocessError):
            pass
    return info


def git_commit():
    try:
        top = subprocess.run(["git", "-C", SRCDIR, "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=20)
        if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(SRCDIR):
            return "unknown (not a git checkout)"
        head = subprocess.run(["git", "-C", SRCDIR, "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=20).stdout.strip()
        dirty = subprocess.run(["git", "-C", SRCDIR, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=20).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# ---------------------------------------------------------------- the table

def num(x, digits=3):
    """Seconds and the like: about three significant digits."""
    if x is None:
        return "—"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.*f" % (digits, x)


def ratio(a, b):
    if a is None or b is None or b <= 0 or a <= 0:
        return None
    return a / b


def speedup_text(gbt, peer):
    """gbt's speed as a multiple of the peer's: the peer's time divided by gbt's."""
    if gbt.get("predict_rows_per_s"):
        parts = []
        b = ratio(peer.get("predict_s"), gbt.get("predict_s"))
        l = ratio(peer.get("latency_us_median"), gbt.get("latency_us_median"))
        if b:
            parts.append("%.2fx batch" % b)
        if l:
            parts.append("%.2fx 1-row" % l)
        return ", ".join(parts) or "—"
    parts = []
    t = ratio(peer.get("train_s"), gbt.get("train_s"))
    tot = ratio((peer.get("train_s") or 0) + (peer.get("construct_s") or 0),
                (gbt.get("train_s") or 0) + (gbt.get("construct_s") or 0))
    if t:
        parts.append("%.2fx train" % t)
    if tot:
        parts.append("%.2fx build+train" % tot)
    return ", ".join(parts) or "—"


def device_text(res, info):
    dev = res.get("device") or "cpu"
    if dev.startswith("cuda") or dev.startswith("gpu"):
        name = res.get("device_name") or (info["gpus"][0]["name"] if info["gpus"] else "")
        return "%s (%s)" % (dev, name) if name else dev
    return dev


def make_table(results, info, show_gpu):
    head = ["workload", "rows", "library", "device", "construct s", "train s", "ms/round",
            "peak host MiB"]
    if show_gpu:
        head.append("peak GPU MiB")
    head += ["test metric", "predict Mrows/s", "1-row µs", "gbt speed-up"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    refs = {}
    for r in results:
        if r["library"] == "gbt" and "error" not in r and "skipped" not in r:
            refs[r["label"]] = r
    for r in results:
        lib = r["library"] + (" " + r["version"] if r.get("version") else "")
        cells = [r["label"], r.get("rows_text", "—"), lib]
        if "skipped" in r or "error" in r:
            what = "skipped: " + r["skipped"] if "skipped" in r else "FAILED: " + r["error"]
            what = what.replace("|", "/")[:160]
            cells += [what] + ["—"] * (len(head) - 4)
        else:
            cells += [device_text(r, info), num(r.get("construct_s")), num(r.get("train_s")),
                      num(r.get("ms_per_round"), 2), "%.0f" % r["peak_rss_mib"]]
            if show_gpu:
                cells.append("%.0f" % r["peak_gpu_mib"] if r.get("peak_gpu_mib") is not None else "—")
            cells.append("%s %.5f" % (r["metric"], r["metric_value"]) if r.get("metric_value") is not None
                         else "—")
            cells.append("%.3f" % (r["predict_rows_per_s"] / 1e6) if r.get("predict_rows_per_s") else "—")
            cells.append("%.1f" % r["latency_us_median"] if r.get("latency_us_median") is not None else "—")
            if r["library"] == "gbt":
                cells.append("(reference)")
            else:
                cells.append(speedup_text(refs.get(r["label"]), r) if r["label"] in refs else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def identity_table(checks):
    lines = ["| workload | gbt on cpu | gbt on cuda | models |", "|---|---|---|---|"]
    for c in checks:
        lines.append("| %s | %s | %s | %s |" % (c["label"], c["cpu"], c["cuda"], c["verdict"]))
    return lines


# ---------------------------------------------------------------- main

def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    log("run.py: " + msg)
    sys.exit(2)


def rows_text(n):
    if n >= 1000000 and n % 100000 == 0:
        return "%gM" % (n / 1e6)
    if n >= 1000 and n % 100 == 0:
        return "%gk" % (n / 1e3)
    return str(n)


def file_digest(path):
    with open(path, "rb") as f:
        data = f.read()
    return data, hashlib.sha256(data).hexdigest()[:12]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2, help="threads for every library (default 2)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every data set's rows by this (default 1: 1M/1M/500k training rows)")
    ap.add_argument("--workloads", default="W1,W2,W3,W4,W5", help="comma-separated (default all)")
    ap.add_argument("--libs", default=",".join(DEFAULT_LIBS),
                    help="comma-separated: gbt,xgboost,lightgbm,gbt-python")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--rounds", type=int, help="boosting rounds for every workload (quick runs)")
    ap.add_argument("--gpu-suite", action="store_true",
                    help="W1 and W3 at 10M rows and W5 at 1M, on cuda (rows times --scale)")
    ap.add_argument("--check-identity", action="store_true",
                    help="gbt trains each workload on cpu and on cuda; compare the saved models' bytes")
    ap.add_argument("--workdir", default=os.path.join(HERE, "work"),
                    help="generated data and models (default bench/work)")
    ap.add_argument("--results-dir",
                    help="where the result files go (default: bench/results for full runs, "
                         "WORKDIR/results for runs reduced with --scale or --rounds)")
    ap.add_argument("--no-results", action="store_true", help="print the table only")
    ap.add_argument("--bindir", help="directory holding gbt_bench and gen_workload "
                                     "(default: BUILDDIR/bench, built with make if needed)")
    ap.add_argument("--builddir", default=SRCDIR, help="the configured build tree (default: the source tree)")
    ap.add_argument("--seed", type=int, default=42, help="data generator seed (default 42)")
    ap.add_argument("--repeat", type=int, default=3, help="W5: batch predictions to take the best of")
    ap.add_argument("--latency-calls", type=int, default=2000, help="W5: single-row calls (median)")
    ap.add_argument("--timeout", type=int, default=0, help="seconds per library run (0: none)")
    args = ap.parse_args()

    args.build = args.bindir is None
    if args.bindir is None:
        args.bindir = os.path.join(args.builddir, "bench")
    args.workdir = os.path.abspath(args.workdir)
    if args.results_dir is None:
        reduced = args.scale != 1.0 or args.rounds
        args.results_dir = os.path.join(args.workdir, "results") if reduced else os.path.join(HERE, "results")
    libs = [l.strip() for l in args.libs.split(",") if l.strip()]
    for l in libs:
        if l not in LIBS:
            die("unknown library %r (%s)" % (l, ", ".join(LIBS)))
    if "gbt-python" in libs:
        # the package from this source tree over the build tree's libgbt, the
        # library gbt_bench links: the difference is the wrapper's alone
        os.environ.setdefault("GBT_LIBRARY_PATH", os.path.join(args.builddir, ".libs"))
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [os.path.join(SRCDIR, "bindings", "python"), os.environ.get("PYTHONPATH")]))
    if args.gpu_suite:
        args.device = "cuda"
        plan = [(wid, s * args.scale) for wid, s in GPU_SUITE]
    else:
        wids = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
        for wid in wids:
            if wid not in WORKLOADS:
                die("unknown workload %r (%s)" % (wid, ", ".join(WORKLOADS)))
        plan = [(wid, args.scale) for wid in wids]
    if args.threads < 1 or args.scale <= 0:
        die("--threads and --scale must be positive")

    suite = Suite(args)
    suite.ensure_binaries()
    info = machine_info()
    started = datetime.datetime.now(datetime.timezone.utc)
    command = "python3 " + shlex.join([os.path.relpath(sys.argv[0], os.getcwd())] + sys.argv[1:])
    log("gbt benchmarks on %s (%s, %d cores), %d threads, device %s" %
        (info["host"], info["cpu"], info["cores"], args.threads, args.device))

    results, checks = [], []
    models = os.path.join(args.workdir, "models")
    for wid, scale in plan:
        w = WORKLOADS[wid]
        data = suite.dataset(w["kind"], scale)
        with open(os.path.join(data, "meta.json")) as f:
            meta = json.load(f)
        rounds = args.rounds if args.rounds else w["rounds"]
        n_train = int(round(meta["rows"] * w["train_fraction"])) if w.get("train_fraction") else meta["rows"]
        label = "%s %s" % (wid, w["title"].format(rounds=rounds))
        if w.get("predict"):
            rtext = "%s (fit %s)" % (rows_text(meta["rows"]), rows_text(max(10, n_train)))
        else:
            rtext = rows_text(meta["rows"])
        for lib in libs:
            save = None
            if lib == "gbt" and args.check_identity:
                os.makedirs(models, exist_ok=True)
                save = os.path.join(models, "%s-%s-%s.json" % (wid, rows_text(meta["rows"]), args.device))
                if os.path.exists(save):
                    os.remove(save)
            log("%s %s (%s rows, %d rounds, %s) ..." % (wid, lib, rtext, rounds, args.device))
            res = suite.run_one(lib, wid, w, data, args.device, rounds, save)
            res.update(label=label, rows_text=rtext)
            results.append(res)
            if "skipped" in res:
                log("  skipped: " + res["skipped"])
            elif "error" in res:
                log("  FAILED: " + res["error"])
            else:
                log("  construct %.3f s, train %.3f s, %s %.5f, peak %.0f MiB" %
                    (res["construct_s"], res["train_s"], res["metric"], res["metric_value"] or float("nan"),
                     res["peak_rss_mib"]))
            if save:
                checks.append(identity_check(suite, wid, w, data, rounds, save, res, label,
                                             os.path.join(models, "%s-%s" % (wid, rows_text(meta["rows"])))))

    show_gpu = args.device != "cpu" or any(r.get("peak_gpu_mib") is not None for r in results)
    table = make_table(results, info, show_gpu)
    notes = make_notes(results, args)
    out = ["## gbt benchmarks, %s" % started.strftime("%Y-%m-%d %H:%M UTC"), "",
           "%s; %s; %d threads; device %s; load average before the run %s" %
           (info["host"], cpu_text(info), args.threads, args.device, info.get("load_before", "unknown")), ""]
    out += table + [""]
    if checks:
        out += ["CPU/CUDA identity of gbt's models:", ""] + identity_table(checks) + [""]
    out += notes
    text = "\n".join(out)
    print(text)

    if not args.no_results:
        path = write_results(args, info, started, command, text, results, checks)
        log("results written to %s" % path)
    failed = [r for r in results if r["library"] == "gbt" and "error" in r]
    failed += [c for c in checks if c["verdict"].startswith("DIFFERENT")]
    return 1 if failed else 0


def identity_check(suite, wid, w, data, rounds, saved, res, label, stem):
    """Trains gbt on the other device and compares the two saved models."""
    other = "cuda" if suite.args.device == "cpu" else "cpu"
    other_path = "%s-%s.json" % (stem, other)
    if os.path.exists(other_path):
        os.remove(other_path)
    c = {"label": label}
    log("%s gbt identity: training on %s too ..." % (wid, other))
    o = suite.run_one("gbt", wid, w, data, other, rounds, other_path)
    paths = {suite.args.device: (saved, res), other: (other_path, o)}
    blobs = {}
    for dev, (path, r) in paths.items():
        if "error" in r:
            c[dev] = "not trained: " + r["error"].replace("|", "/")[:120]
        elif not os.path.exists(path):
            c[dev] = "no model saved"
        else:
            blobs[dev], digest = file_digest(path)
            c[dev] = "%d bytes, sha256 %s" % (len(blobs[dev]), digest)
    if len(blobs) < 2:
        c["verdict"] = "not compared"
    elif blobs["cpu"] == blobs["cuda"]:
        c["verdict"] = "identical"
    else:
        a, b = blobs["cpu"], blobs["cuda"]
        first = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        c["verdict"] = "DIFFERENT (first difference at byte %d)" % first
    log("  " + c["verdict"])
    return c


def cpu_text(info):
    s = "%s, %d cores" % (info["cpu"], info["cores"])
    if info["gpus"]:
        s += "; " + ", ".join("%s (driver %s, %s)" % (g["name"], g["driver"], g["memory"]) for g in info["gpus"])
    return s


def make_notes(results, args):
    notes = []
    gbt_first = ["%s %.3f s" % (r["workload"], r["first_round_s"]) for r in results
                 if r["library"] == "gbt" and r.get("first_round_s") is not None]
    notes.append("- construct s: building the training dataset from arrays in memory. gbt copies the data "
                 "there and bins it in its first training round, so its train s includes binning "
                 "(first round: %s); XGBoost's QuantileDMatrix and LightGBM's Dataset.construct() bin "
                 "during construction. build+train compares the sum." % (", ".join(gbt_first) or "—"))
    notes.append("- gbt speed-up: the peer's time divided by gbt's (above 1: gbt is faster); for W5, "
                 "the peer's batch prediction time and single-row latency divided by gbt's.")
    notes.append("- peak host MiB: the whole process's peak resident memory (getrusage via wait4), "
                 "including the raw data it loaded and, for the peers, the Python interpreter.")
    if any(r["library"] != "gbt" and r.get("latency_us_median") for r in results):
        notes.append("- 1-row µs: median of single-row predictions; the peers' include the Python call.")
    if any(r.get("peak_gpu_mib") is not None for r in results):
        notes.append("- peak GPU MiB: device memory in use above the level before the run, sampled with "
                     "nvidia-smi every 0.2 s.")
    for lib in sorted({r["library"] for r in results if "skipped" in r}):
        notes.append("- %s was skipped: %s" % (lib, next(r["skipped"] for r in results
                                                          if r["library"] == lib and "skipped" in r)))
    if args.scale != 1.0 or args.rounds:
        notes.append("- reduced run (--scale %g%s): not comparable with full runs."
                     % (args.scale, ", --rounds %d" % args.rounds if args.rounds else ""))
    return notes


def write_results(args, info, started, command, text, results, checks):
    os.makedirs(args.results_dir, exist_ok=True)
    tag = ""
    if args.gpu_suite:
        tag += "-gpu"
    if args.scale != 1.0:
        tag += "-scale%g" % args.scale
    if args.rounds:
        tag += "-rounds%d" % args.rounds
    base = "%s-%s%s" % (started.strftime("%Y-%m-%d"), info["host"], tag)
    path = os.path.join(args.results_dir, base + ".md")
    n = 2
    while os.path.exists(path):
        path = os.path.join(args.results_dir, "%s-%d.md" % (base, n))
        n += 1
    gbt_build = next((r.get("build_info") for r in results if r["library"] == "gbt" and r.get("build_info")),
                     None)
    versions = sorted({"%s %s" % (r["library"], r["version"]) for r in results if r.get("version")})
    head = ["# gbt benchmark results", "",
            "- date: %s" % started.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "- commit: %s" % git_commit(),
            "- command: `%s`" % command,
            "- host: %s (%s)" % (info["host"], info["os"]),
            "- CPU: %s, %d logical cores%s" % (info["cpu"], info["cores"],
                                                ", %.1f GiB memory" % info["memory_gib"]
                                                if "memory_gib" in info else ""),
            "- GPU: %s" % ("; ".join("%s, driver %s, %s" % (g["name"], g["driver"], g["memory"])
                                     for g in info["gpus"]) or "none"),
            "- load average before the run (1, 5, 15 min): %s" % info.get("load_before", "unknown"),
            "- threads: %d; device: %s; scale: %g%s" % (args.threads, args.device, args.scale,
                                                         "; rounds: %d" % args.rounds if args.rounds else ""),
            "- libraries: %s" % (", ".join(versions) or "—"),
            "- Python %s" % info["python"]]
    if gbt_build:
        head.append("- gbt build: `%s`" % json.dumps(gbt_build))
    with open(path, "w") as f:
        f.write("\n".join(head) + "\n\n" + text + "\n")
    with open(path[:-3] + ".json", "w") as f:
        json.dump({"date": started.isoformat(), "commit": git_commit(), "command": command,
                   "machine": info, "threads": args.threads, "device": args.device, "scale": args.scale,
                   "rounds": args.rounds, "results": results, "identity": checks}, f, indent=1)
        f.write("\n")
    return path


if __name__ == "__main__":
    sys.exit(main())
