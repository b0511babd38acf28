"""`normgrad bench --plot`: bar charts of % of HBM roofline and traffic ratio per case and SoC.

matplotlib is an optional dependency (`pip install 'normgrad[plot]'`); available() says if it is there.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from normgrad.bench import BenchRow

INSTALL_HINT = "matplotlib is not installed; install it with: pip install 'normgrad[plot]'"


def available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def plot_bench(rows: Sequence[BenchRow], path: Path) -> None:
    """Writes a two-panel figure (format from the file suffix): grouped bars per case, one bar per SoC.
    Skipped and failed rows leave a gap. Raises ImportError with INSTALL_HINT without matplotlib."""
    if not available():
        raise ImportError(INSTALL_HINT)
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on build machines
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(f"{r.op}/{r.case}\n{r.dtype}" for r in rows))
    socs = list(dict.fromkeys(r.soc for r in rows))
    by_key = {(f"{r.op}/{r.case}\n{r.dtype}", r.soc): r for r in rows if r.status == "ok"}
    width = 0.8 / max(len(socs), 1)
    fig, axes = plt.subplots(2, 1, figsize=(max(6.0, 1.2 * len(cases) + 2), 7), sharex=True)
    panels = [("roofline_pct", "% of HBM roofline"), ("traffic_ratio", "bytes moved / minimum bytes")]
    for ax, (attr, label) in zip(axes, panels, strict=True):
        for j, soc in enumerate(socs):
            xs, ys = [], []
            for i, case in enumerate(cases):
                row = by_key.get((case, soc))
                if row is not None and getattr(row, attr) is not None:
                    xs.append(i + (j - (len(socs) - 1) / 2) * width)
                    ys.append(getattr(row, attr))
            ax.bar(xs, ys, width, label=soc)
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    axes[0].axhline(100, color="gray", linewidth=0.8)
    axes[1].axhline(1, color="gray", linewidth=0.8)
    axes[0].legend()
    axes[1].set_xticks(range(len(cases)), cases, rotation=30, ha="right", fontsize=8)
    axes[0].set_title("normgrad bench (modeled)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
