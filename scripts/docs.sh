#!/bin/sh
# docs.sh - builds the documentation site (docs/site, Sphinx) into OUTDIR
# (default docs/html in this tree): `make docs` runs it.
#
#   scripts/docs.sh [OUTDIR]
#
# The tools are pinned in docs/site/requirements.txt and installed into a
# virtual environment of their own (GBT_DOCS_VENV, default .docs-venv here;
# about a minute the first time), with numpy, matplotlib and scikit-learn
# for the Python reference and the tutorials.  GBT_DOCS_VENV may name an
# existing environment (CI passes the Python step's).  The Python package is
# the one in bindings/python over the library GBT_LIBRARY_PATH names
# (default .libs/libgbt.so here, which is built first when missing).
# Warnings fail the build (-W --keep-going), and so do broken internal
# references (-n) and a tutorial whose code fails (docs/site/_ext/gbt_run.py).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
out=${1:-$top/docs/html}
venv=${GBT_DOCS_VENV:-$top/.docs-venv}
step() { echo "gbt docs: $*"; }

if [ -z "${GBT_LIBRARY_PATH:-}" ]; then
    GBT_LIBRARY_PATH=$top/.libs/libgbt.so
    if [ ! -f "$GBT_LIBRARY_PATH" ]; then
        . scripts/deps.sh
        gbt_build
    fi
fi
export GBT_LIBRARY_PATH

req=docs/site/requirements.txt
if [ ! -x "$venv/bin/python" ]; then
    step "creating the virtual environment $venv"
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" - "$req" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
import numpy, matplotlib, sklearn  # noqa: F401
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, want = line.split("==")
        assert version(name) == want, name
PY
then
    step "installing $(grep -v '^#' "$req" | tr '\n' ' ')numpy matplotlib scikit-learn into $venv"
    "$venv/bin/pip" install -q -r "$req" numpy matplotlib scikit-learn
fi

step "building the site into $out"
rm -rf "$out"
PYTHONPATH=$top/bindings/python${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
    "$venv/bin/python" -m sphinx -b html -q -W --keep-going -n -d "$out/.doctrees" docs/site "$out"
rm -rf "$out/.doctrees"
step "done: open $out/index.html"
