"""`normgrad bench --plot`: % of HBM roofline and traffic ratio per case and SoC, figures per operator.

matplotlib is an optional dependency (`pip install 'normgrad[plot]'`); available() says if it is there
and check_path() whether a path can take a figure, both before the bench runs.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from normgrad.bench import BenchRow

INSTALL_HINT = "matplotlib is not installed; install it with: pip install 'normgrad[plot]'"
FONT_SIZE = 11  # points: legible when the figure is shown at its size (DPI)
DPI = 100
MAX_FIGURE_INCHES = 12.0  # a page's height at most (1200 px): one screen; more cases go on further pages
MARGIN_INCHES = 1.5  # title, legend and x axis


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


def pages(cases: Sequence[str], n_socs: int) -> list[list[str]]:
    """The cases split into pages of equal size whose figures stay MAX_FIGURE_INCHES tall at most."""
    per_page = max(1, int((MAX_FIGURE_INCHES - MARGIN_INCHES) / _case_inches(n_socs)))
    count = -(-len(cases) // per_page)
    size = -(-len(cases) // max(count, 1))
    return [list(cases[i:i + size]) for i in range(0, len(cases), size)]


def output_paths(path: Path, page_counts: dict[str, int]) -> dict[tuple[str, int], Path]:
    """The file of each (operator, page): path itself for one operator on one page; else path's
    stem + '-' + op with several operators, + '-' + page number with several pages."""
    paths = {}
    for op, count in page_counts.items():
        for page in range(1, count + 1):
            stem = path.stem + (f"-{op}" if len(page_counts) > 1 else "") + (f"-{page}" if count > 1 else "")
            paths[(op, page)] = path.with_name(stem + path.suffix)
    return paths


def plot_bench(rows: Sequence[BenchRow], path: Path) -> list[Path]:
    """Writes the figures of each operator (output_paths; format from the suffix), returns the files.

    Each figure has two panels side by side, % of roofline and traffic ratio, with the cases down
    the y axis (labels stay horizontal and readable however many there are) and one bar per SoC;
    an operator with more cases than a page holds gets several pages. Rows modeled with --what-if
    constants are left out (the SoC's own constants only). Raises ImportError with INSTALL_HINT
    without matplotlib.
    """
    if not available():
        raise ImportError(INSTALL_HINT)
    plt = _pyplot()
    rows = [r for r in rows if not r.what_if]
    by_op = {op: [r for r in rows if r.op == op] for op in dict.fromkeys(r.op for r in rows)}
    paged = {op: pages(_cases(op_rows), len(_socs(op_rows))) for op, op_rows in by_op.items()}
    paths = output_paths(path, {op: len(p) for op, p in paged.items()})
    written = []
    for op, op_pages in paged.items():
        limits = panel_limits(by_op[op])  # one scale for all pages of the operator
        for page, cases in enumerate(op_pages, start=1):
            title = f"normgrad bench: {op} (modeled)" + (f", page {page} of {len(op_pages)}"
                                                          if len(op_pages) > 1 else "")
            fig = figure(plt, title, [r for r in by_op[op] if _case(r) in cases], _socs(by_op[op]), limits)
            target = paths[(op, page)]
            fig.savefig(target, dpi=DPI)
            plt.close(fig)
            written.append(target)
    return written


# (BenchRow attribute, axis label, reference line at the limit, where bars start): % of roofline
# from 0; the traffic ratio, never far above its minimum 1.00, from 1.00, so that a bar is the excess.
PANELS = (("roofline_pct", "% of HBM roofline", 100.0, 0.0),
          ("traffic_ratio", "bytes moved / minimum", 1.0, 1.0))


def _case(row: BenchRow) -> str:
    return f"{row.case} {row.dtype}"


def _cases(rows: Sequence[BenchRow]) -> list[str]:
    return list(dict.fromkeys(_case(r) for r in rows))


def _socs(rows: Sequence[BenchRow]) -> list[str]:
    return list(dict.fromkeys(r.soc for r in rows))


def _case_inches(n_socs: int) -> float:
    """Height of one case's row: its bars (one per SoC) and their labels stay legible."""
    return 0.32 * max(n_socs, 1) ** 0.5


def panel_limits(rows: Sequence[BenchRow]) -> dict[str, tuple[float, float]]:
    """Each panel's x range over the rows that ran: their values, the reference line and the bars'
    base, with a 5 % margin (none below a base of 0). The traffic axis thus starts near its data,
    just below 1.00, where a range from 0 would flatten every difference."""
    limits = {}
    for attr, _, reference, base in PANELS:
        values = [getattr(r, attr) for r in rows if r.status == "ok"]
        data = [v for v in values if v is not None] + [reference, base]
        low, high = min(data), max(data)
        pad = 0.05 * (high - low)
        limits[attr] = (low if low == 0.0 else low - pad, high + pad)
    return limits


def figure(plt, title: str, rows: Sequence[BenchRow], socs: Sequence[str],  # noqa: ANN001, ANN201
           limits: dict[str, tuple[float, float]]):
    """One page: the two panels for rows, a bar per SoC of socs (its colour fixed by its place there,
    so that every page of an operator agrees), x ranges limits per BenchRow attribute. A case a SoC
    skipped or failed gets no bar but a label saying so where its bar would be."""
    cases = _cases(rows)
    by_key = {(_case(r), r.soc): r for r in rows}
    height = 0.8 / max(len(socs), 1)
    with plt.rc_context({"font.size": FONT_SIZE}):
        fig, axes = plt.subplots(1, 2, figsize=(13, MARGIN_INCHES + _case_inches(len(socs)) * len(cases)),
                                 sharey=True)
        for ax, (attr, label, reference, base) in zip(axes, PANELS, strict=True):
            for j, soc in enumerate(socs):
                ys, widths = [], []
                for i, case in enumerate(cases):
                    y = i + (j - (len(socs) - 1) / 2) * height
                    row = by_key.get((case, soc))
                    value = getattr(row, attr) if row is not None and row.status == "ok" else None
                    if value is not None:
                        ys.append(y)
                        widths.append(value - base)
                    elif row is not None:
                        ax.text(0.01, y, f"{soc}: {row.status}", transform=ax.get_yaxis_transform(),
                                va="center", fontsize=FONT_SIZE - 2, color="dimgray")
                ax.barh(ys, widths, height, left=base, label=soc, color=f"C{j}")
            ax.axvline(reference, color="gray", linewidth=0.8)
            ax.set_xlim(*limits[attr])
            ax.set_xlabel(label)
            ax.grid(axis="x", alpha=0.3)
        axes[0].set_yticks(range(len(cases)), cases)
        axes[0].invert_yaxis()  # first case on top, as in the table
        # The legend above the panels, beside the title, so that it hides no bar.
        # One entry per SoC, also for a SoC that has no bar on this page.
        fig.legend([plt.Rectangle((0, 0), 1, 1, color=f"C{j}") for j in range(len(socs))], socs,
                   loc="upper right", ncol=len(socs), frameon=False)
        fig.suptitle(title, x=0.02, ha="left")
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    return fig
