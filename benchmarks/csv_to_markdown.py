"""Turns a `normgrad bench --csv` file into the Markdown table the operator docs carry.

    python benchmarks/csv_to_markdown.py benchmarks/layer_norm_grad_ascend910b.csv

Prints one row per case that ran: modeled time and the part of it spent in SyncAll, % of the HBM
roofline, the model's ceiling for a perfect single-pass stream of the same bytes (`ceiling %`),
traffic ratio, load balance and cores.
Rows that did not run are counted after the table, one line per reason.

    python benchmarks/csv_to_markdown.py --compare --op group_norm_grad compare.csv

prints instead the comparison table of a `normgrad bench --compare --csv` file (rows modeled with the
SoC's own constants): ours µs, the official time (ops-nn's own kernel measured on front end B where it ran,
else the hand-written model of the official algorithm, with the reason after the table), the speed-up
(official / ours) and the official path's launches.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

HEADERS = ["case", "dtype", "shape", "MB", "µs", "SyncAll µs", "% roofline", "ceiling %", "traffic",
           "balance", "cores"]


def _num(value: str, digits: int) -> str:
    return f"{float(value):.{digits}f}" if value not in ("", "None") else ""


def markdown(rows: list[dict[str, str]]) -> str:
    """The Markdown table of the rows that ran, then one line per reason some rows did not."""
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|---|---|" + "---:|" * (len(HEADERS) - 3)]
    skipped: dict[str, list[str]] = {}
    for r in rows:
        if r["status"] != "ok":
            skipped.setdefault(f"{r['status']} on {r['soc']} ({r['note']})", []).append(
                f"{r['case']} {r['dtype']}")
            continue
        cells = [r["case"], r["dtype"], r["shape"], f"{int(r['min_bytes']) / 1e6:.1f}",
                 _num(r["modeled_us"], 1), _num(r.get("sync_us", ""), 0), _num(r["roofline_pct"], 1),
                 _num(r.get("ceiling_pct", ""), 1), _num(r["traffic_ratio"], 3), _num(r["load_balance"], 2),
                 r["block_dim"]]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- {reason}: {len(names)} case{'s' if len(names) > 1 else ''}"
             + (f" ({', '.join(names)})" if len(names) <= 3 else "") for reason, names in skipped.items()]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


COMPARE_HEADERS = ["case", "dtype", "shape", "ours µs", "official µs", "speed-up", "official launches",
                   "official time"]
# The start of official_source on rows where ops-nn's own kernel ran on front end B (normgrad.opsnn.MARK);
# every other row is the hand-written model of the official algorithm, with the reason after ": ".
MEASURED = "measured"


def compare_markdown(rows: list[dict[str, str]]) -> str:
    """The comparison table of the rows that ran with the SoC's own constants and have an official time
    (`official time`: measured, ops-nn's kernel on front end B, or modeled, the hand-written model), then one
    line per reason a row is modeled."""
    lines = ["| " + " | ".join(COMPARE_HEADERS) + " |",
             "|---|---|---|" + "---:|" * (len(COMPARE_HEADERS) - 4) + "---|"]
    modeled: dict[str, list[str]] = {}
    for r in rows:
        if r["status"] != "ok" or r.get("what_if") or not r.get("official_us"):
            continue
        source = r.get("official_source", "")
        measured = source.startswith(MEASURED)
        if not measured:
            modeled.setdefault(source.split(": ", 1)[1] if ": " in source else "no ops-nn run recorded",
                               []).append(f"{r['case']} {r['dtype']}")
        cells = [r["case"], r["dtype"], r["shape"], _num(r["modeled_us"], 1), _num(r["official_us"], 1),
                 _num(r["speedup"], 2), r["official_launches"], "measured" if measured else "modeled"]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- modeled, {len(names)} case{'s' if len(names) > 1 else ''}"
             + (f" ({', '.join(names)})" if len(names) <= 3 else "") + f": {reason}"
             for reason, names in modeled.items()]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="a CSV written by normgrad bench --csv")
    parser.add_argument("--compare", action="store_true", help="the comparison table of a --compare CSV")
    parser.add_argument("--op", help="only this operator's rows")
    args = parser.parse_args(argv)
    with args.csv.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if args.op is None or r["op"] == args.op]
    sys.stdout.write(compare_markdown(rows) if args.compare else markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
