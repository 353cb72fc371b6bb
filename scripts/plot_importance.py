#!/usr/bin/env python3
"""Bar chart of `gbmodel importance` output (NAME<TAB>VALUE lines).

    gbmodel importance --type=total_gain model.json | python3 scripts/plot_importance.py - importance.png [TITLE]

Needs matplotlib (pip install matplotlib).  Shows the 15 largest values.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1])
    rows = [line.rstrip("\n").split("\t") for line in src if line.strip()]
    rows = [(name, float(value)) for name, value in rows][:15][::-1]
    fig, ax = plt.subplots(figsize=(6, 0.3 * len(rows) + 1.2))
    ax.barh([r[0] for r in rows], [r[1] for r in rows], color="#4C72B0")
    ax.set_xlabel("importance")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else "Feature importance")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
