"""`normgrad bench --plot`: % of HBM roofline and traffic ratio per case and SoC, one figure per operator.

matplotlib is an optional dependency (`pip install 'normgrad[plot]'`); available() says if it is there
and check_path() whether a path can take a figure, both before the bench runs.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from normgrad.bench import BenchRow

INSTALL_HINT = "matplotlib is not installed; install it with: pip install 'normgrad[plot]'"
FONT_SIZE = 11  # points: legible when the figure is shown at its size (100 dpi)


def available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def _pyplot():  # noqa: ANN202 - matplotlib.pyplot, imported only when drawing
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on build machines
    import matplotlib.pyplot as plt

    return plt


def check_path(path: Path) -> str:
    """Why path cannot take a figure ('' when it can): matplotlib missing, a suffix that is not a
    format matplotlib writes, or a folder that does not exist."""
    if not available():
        return INSTALL_HINT
    plt = _pyplot()
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        return (f"{path}: the suffix gives the format; '{path.suffix or '(none)'}' is not one matplotlib "
                f"writes ({', '.join('.' + f for f in sorted(formats))})")
    if not path.parent.is_dir():
        return f"{path}: the folder {path.parent} does not exist"
    return ""


def output_paths(path: Path, ops: Sequence[str]) -> dict[str, Path]:
    """The file of each operator's figure: path itself for one operator, else path's stem + '-' + op."""
    if len(ops) == 1:
        return {ops[0]: path}
    return {op: path.with_name(f"{path.stem}-{op}{path.suffix}") for op in ops}


def plot_bench(rows: Sequence[BenchRow], path: Path) -> list[Path]:
    """Writes one figure per operator (output_paths; format from the suffix) and returns the files.

    Each figure has two panels side by side, % of roofline and traffic ratio, with the cases down
    the y axis (labels stay horizontal and readable however many there are) and one bar per SoC.
    Skipped and failed rows leave a gap. Raises ImportError with INSTALL_HINT without matplotlib.
    """
    if not available():
        raise ImportError(INSTALL_HINT)
    plt = _pyplot()
    ops = list(dict.fromkeys(r.op for r in rows))
    written = []
    for op, target in output_paths(path, ops).items():
        _plot_op(plt, op, [r for r in rows if r.op == op], target)
        written.append(target)
    return written


def _plot_op(plt, op: str, rows: Sequence[BenchRow], path: Path) -> None:  # noqa: ANN001
    cases = list(dict.fromkeys(f"{r.case} {r.dtype}" for r in rows))
    socs = list(dict.fromkeys(r.soc for r in rows))
    by_key = {(f"{r.case} {r.dtype}", r.soc): r for r in rows if r.status == "ok"}
    height = 0.8 / max(len(socs), 1)
    fig_height = max(3.0, 0.32 * len(cases) * max(len(socs), 1) ** 0.5 + 1.5)
    with plt.rc_context({"font.size": FONT_SIZE}):
        fig, axes = plt.subplots(1, 2, figsize=(13, fig_height), sharey=True)
        panels = [("roofline_pct", "% of HBM roofline", 100.0),
                  ("traffic_ratio", "bytes moved / minimum", 1.0)]
        for ax, (attr, label, reference) in zip(axes, panels, strict=True):
            for j, soc in enumerate(socs):
                ys, widths = [], []
                for i, case in enumerate(cases):
                    row = by_key.get((case, soc))
                    if row is not None and getattr(row, attr) is not None:
                        ys.append(i + (j - (len(socs) - 1) / 2) * height)
                        widths.append(getattr(row, attr))
                ax.barh(ys, widths, height, label=soc)
            ax.axvline(reference, color="gray", linewidth=0.8)
            ax.set_xlabel(label)
            ax.grid(axis="x", alpha=0.3)
        axes[0].set_yticks(range(len(cases)), cases)
        axes[0].invert_yaxis()  # first case on top, as in the table
        # The legend above the panels, beside the title, so that it hides no bar.
        fig.legend(*axes[0].get_legend_handles_labels(), loc="upper right", ncol=len(socs), frameon=False)
        fig.suptitle(f"normgrad bench: {op} (modeled)", x=0.02, ha="left")
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        fig.savefig(path, dpi=100)
        plt.close(fig)
