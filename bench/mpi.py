#!/usr/bin/env python3
"""Distributed training over MPI on this machine: W1 (the higgs workload of
gen_workload) trained by one process and by mpirun -np 2 gbtrain.

    python3 bench/mpi.py [--rows 1000000] [--rounds 20] [--builddir .]

Runs, each with 20 depth-8 rounds (W1's parameters) and no metrics:
  1 process, 1 thread; 1 process, 2 threads; 2 processes (mpirun -np 2,
  one shard file each), 1 thread each.
It reports the median seconds of a round after the first (gbtrain's debug
line "gradients and trees"), the bytes each process put into the
exchanges per round (gbtrain's last log line), and whether the models are
byte-identical.  The table goes to bench/results/<date>-<host>-mpi.md.
"""
import argparse
import datetime
import os
import re
import socket
import statistics
import subprocess
import sys

import numpy as np


def write_csv(path, x, y):
    with open(path, "w") as f:
        for i in range(0, len(y), 100000):
            block = np.column_stack([y[i:i + 100000], x[i:i + 100000]])
            np.savetxt(f, block, fmt="%.6g", delimiter=",")


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    rounds = [float(m.group(1)) for m in re.finditer(r"gradients and trees ([0-9.]+) s", p.stderr)]
    mb = re.search(r"rank 0 of \d+: ([0-9.]+) MB exchanged in set-up, ([0-9.]+) MB per round", p.stderr)
    return statistics.median(rounds[1:]), (float(mb.group(1)), float(mb.group(2))) if mb else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--builddir", default=".")
    a = ap.parse_args()
    work = os.path.join(a.builddir, "bench", "work", "mpi")
    os.makedirs(work, exist_ok=True)
    gen = os.path.join(a.builddir, "bench", "gen_workload")
    subprocess.run([gen, "higgs", work, "--rows", str(a.rows), "--test-rows", "1000"], check=True,
                   capture_output=True)
    x = np.fromfile(os.path.join(work, "X_train.f32"), dtype=np.float32).reshape(a.rows, -1)
    y = np.fromfile(os.path.join(work, "y_train.f32"), dtype=np.float32)
    whole = os.path.join(work, "w1.csv")
    write_csv(whole, x, y)
    half = a.rows // 2
    write_csv(os.path.join(work, "w1-0.csv"), x[:half], y[:half])
    write_csv(os.path.join(work, "w1-1.csv"), x[half:], y[half:])
    gbtrain = os.path.join(a.builddir, "gbtrain")
    opts = ["--objective=binary:logistic", "--max_depth=8", "--num_round=%d" % a.rounds, "--eval_train=0",
            "--verbosity=3", "--force"]
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    rows = []
    m1 = os.path.join(work, "one-1.json")
    t, _ = run([gbtrain, "--nthread=1"] + opts + [whole, m1], env)
    rows.append(("1 process, 1 thread", t, None))
    m2 = os.path.join(work, "one-2.json")
    t, _ = run([gbtrain, "--nthread=2"] + opts + [whole, m2], env)
    rows.append(("1 process, 2 threads", t, None))
    mm = os.path.join(work, "mpi-2.json")
    t, mb = run(["mpirun", "-np", "2", gbtrain, "--nthread=1"] + opts + [os.path.join(work, "w1-%d.csv"), mm], env)
    rows.append(("mpirun -np 2, 1 thread each", t, mb))
    same = all(open(m, "rb").read() == open(m1, "rb").read() for m in (m2, mm))
    host = socket.gethostname()
    date = datetime.date.today().isoformat()
    lines = ["# Distributed training on one machine (%s, %s)" % (host, date), "",
             "W1 (higgs), %d rows x %d features, depthwise max_depth 8, %d rounds, no metrics; "
             "%d cores, load average %s. Models byte-identical across the three runs: %s." %
             (a.rows, x.shape[1], a.rounds, os.cpu_count(), os.getloadavg()[0], "yes" if same else "NO"),
             "", "| run | s per round (median after the first) | vs 1 process, 1 thread | MB per process: set-up | MB per process per round |",
             "|---|---|---|---|---|"]
    base = rows[0][1]
    for name, t, mb in rows:
        lines.append("| %s | %.3f | %.2fx | %s | %s |" % (name, t, base / t, "%.1f" % mb[0] if mb else "—",
                                                         "%.2f" % mb[1] if mb else "—"))
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join("bench", "results"), exist_ok=True)
    with open(os.path.join("bench", "results", "%s-%s-mpi.md" % (date, host)), "w") as f:
        f.write(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
