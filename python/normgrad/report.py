"""Plain-text tables and number formats for the command line's output."""

from __future__ import annotations

import math
from collections.abc import Sequence


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> str:
    """Columns padded to their widest cell; columns whose index is in `right` are right-aligned.

    table(["soc", "cores"], [["ascend910b", 48]], right=[1]) ->
        soc         cores
        ----------  -----
        ascend910b     48
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        pairs = enumerate(zip(row, widths, strict=True))
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in pairs]
        return "  ".join(parts).rstrip()

    return "\n".join([line(cells[0]), line(["-" * w for w in widths])] + [line(r) for r in cells[1:]])


def sci(value: float) -> str:
    """An error magnitude: '0' for exact, '3.1e-04' otherwise, 'inf' / 'nan' as such."""
    if value == 0:
        return "0"
    if math.isinf(value) or math.isnan(value):
        return str(value)
    return f"{value:.1e}"


def fixed(value: float | None, digits: int = 1) -> str:
    """A measured quantity with a fixed number of decimals; '-' when there is none."""
    return "-" if value is None else f"{value:.{digits}f}"
