"""`normgrad bench`: runs each case once per SoC profile and summarises the modeled launch reports."""

from __future__ import annotations

import csv
import functools
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from normgrad import _native, official_model, opsnn
from normgrad.cases.base import Case
from normgrad.check import case_rng
from normgrad.errors import AclnnError

# aclnn status of a rejected argument: on a profile, that means "this SoC cannot run the case".
_STATUS_INVALID = 161002


@dataclass
class BenchRow:
    """One case on one SoC profile. Times in microseconds; None where the case did not run.

    modeled_us      sum of the launches' modeled totalUs (launch overhead included)
    roofline_pct    100 * (min_bytes / peak HBM bandwidth) / modeled_us
    ceiling_pct     the best roofline_pct the cost model allows: one launch streaming exactly
                    min_bytes at sustained bandwidth, no SyncAll (ceiling_pct(), below 100)
    traffic_ratio   HBM bytes moved (sum of bytesIn - l2HitBytes + bytesOut over launches) /
                    min_bytes: re-reads the L2 model serves move no HBM bytes (they still take
                    the core's DMA port, which modeled_us charges)
    load_balance    the launches' loadBalance, weighted by their totalUs
    sync_us         the part of modeled_us spent in SyncAll (the launches' syncUs)
    block_dim       blockDim of each launch, joined by '+' ("48+1" for a main and a final kernel)
    what_if         the what-if constants the row was modeled with ("" for the SoC's own)
    official_us     `--compare`: the official kernel's time under the same constants: ops-nn's kernel on
                    front end B where it runs (normgrad.opsnn), else the hand-written model of its
                    algorithm (normgrad.official_model; None where neither exists)
    speedup         official_us / modeled_us (above 1: ours is faster)
    official_launches  the number of launches of the official path
    official_source    `--compare`: where official_us comes from: opsnn.MARK (Huawei's kernel run on
                    front end B, priced by the same cost model) or opsnn.MODELED_MARK with the reason
    """

    op: str
    case: str
    dtype: str
    shape: str
    soc: str
    status: str  # "ok", "skipped" (the profile cannot run the case), "failed", or "ran" (no launch report)
    modeled_us: float | None = None
    roofline_pct: float | None = None
    ceiling_pct: float | None = None
    traffic_ratio: float | None = None
    load_balance: float | None = None
    sync_us: float | None = None
    block_dim: str = ""
    launches: int = 0
    bytes_moved: int = 0
    min_bytes: int = 0
    note: str = ""  # why skipped or failed
    what_if: str = ""
    official_us: float | None = None
    speedup: float | None = None
    official_launches: int | None = None
    official_source: str | None = None


# The note of a row front end B ran without a launch report (status "ran").
UNMODELED_ON_B = ("modeled figures unavailable: front end B (CANN's Ascend C) adds no launch report "
                  "with modeled time and peak UB yet; the outputs were computed")

# The columns only `--compare` fills; the CSV has them only then.
COMPARE_FIELDS = ("official_us", "speedup", "official_launches", "official_source")


# Case.op -> the operator definition (normgradOpDefsJson) whose "socs" lists the SoCs it serves.
OP_DEFS = {"group_norm_grad": "GroupNormGrad", "layer_norm_grad": "LayerNormGradV3",
           "batch_norm_elemt_grad": "BatchNormElemtGrad"}


@functools.cache
def served_socs(op: str) -> tuple[str, ...] | None:
    """The SoC families the operator of case op serves (every chip of them), from its definition
    (None: not known)."""
    name = OP_DEFS.get(op)
    for definition in _native.op_defs() if name else []:
        if definition.get("name") == name and definition.get("socs"):
            return tuple(str(s) for s in definition["socs"])
    return None


def skip_reason(case: Case, profile: dict[str, Any]) -> str | None:
    """Why profile cannot run case at all, known before running it (None when it can)."""
    served = served_socs(case.op)
    if served is not None and profile["family"] not in served:
        return f"{OP_DEFS[case.op]} does not serve {soc_label(profile)} (it runs on {', '.join(served)})"
    if case.dtype == "bfloat16" and not profile.get("hasBf16", True):
        return f"{profile['name']} has no bfloat16"
    if profile["family"] in case.rejected_on:
        return f"{soc_label(profile)} rejects it: {case.rejected_on[profile['family']]}"
    return None


def soc_label(profile: dict[str, Any]) -> str:
    """The profile's name, with its family when it names one chip ("Ascend910ProA (ascend910)")."""
    name, family = str(profile["name"]), str(profile["family"])
    return name if name == family else f"{name} ({family})"


def roofline_us(min_bytes: int, profile: dict[str, Any]) -> float:
    """The roofline time of a case in us: min_bytes moved at the profile's peak HBM bandwidth."""
    return min_bytes / (float(profile["hbmPeakTBs"]) * 1e12) * 1e6


def ceiling_pct(min_bytes: int, profile: dict[str, Any]) -> float:
    """The highest % roofline the cost model lets any kernel reach on profile.

    The model charges a launch launchUs plus bytes / sustained bandwidth (sustained < peak), so
    even a perfect single launch of min_bytes and no SyncAll stays below 100 %, and the fixed
    launch cost weighs more the smaller the case (docs/cost-model.md §6).
    """
    best_us = float(profile["launchUs"]) + min_bytes / (float(profile["hbmSustainedTBs"]) * 1e12) * 1e6
    return 100.0 * roofline_us(min_bytes, profile) / best_us


def summarize(case: Case, profile: dict[str, Any], launches: Sequence[dict[str, Any]]) -> BenchRow:
    """The row for a case that ran on profile, from its launch reports (last_run())."""
    row = BenchRow(case.op, case.name, case.dtype, case.shape, str(profile["name"]), "ok",
                   min_bytes=case.min_bytes, launches=len(launches))
    stale = sorted({str(launch["soc"]) for launch in launches if launch.get("soc", row.soc) != row.soc})
    if not launches and _native.selected_front_end() == "cann":
        # Front end B's launches add no report to the run log yet (issue 20 item 5): the call ran, its
        # modeled figures are unknown. Once B reports its launches they are summarized as A's are.
        row.status, row.note = "ran", UNMODELED_ON_B
        return row
    if not launches or stale:
        # The run log holds the latest execute phase; one from another SoC means this call had none.
        row.status = "failed"
        row.note = "the call launched no kernel" + (f" (the launch report is from {', '.join(stale)})"
                                                    if stale else "")
        row.launches = 0
        return row
    errors = [f"{launch.get('kernel', '?')}: {launch.get('error', '')}"
              for launch in launches if not launch.get("ok", True)]
    if errors:
        row.status, row.note = "failed", "; ".join(errors)
    total_us = sum(float(launch["totalUs"]) for launch in launches)
    row.modeled_us = total_us
    row.sync_us = sum(float(launch.get("syncUs", 0.0)) for launch in launches)
    row.bytes_moved = sum(int(launch["bytesIn"]) - int(launch.get("l2HitBytes", 0)) + int(launch["bytesOut"])
                          for launch in launches)
    row.block_dim = "+".join(str(launch["blockDim"]) for launch in launches)
    row.ceiling_pct = ceiling_pct(case.min_bytes, profile)
    if total_us > 0:
        row.load_balance = sum(float(launch["loadBalance"]) * float(launch["totalUs"])
                               for launch in launches) / total_us
        row.roofline_pct = 100.0 * roofline_us(case.min_bytes, profile) / total_us
    if case.min_bytes > 0:
        row.traffic_ratio = row.bytes_moved / case.min_bytes
    return row


def run_bench(case: Case, profile: dict[str, Any], seed: int = 0) -> BenchRow:
    """Runs case once on profile and returns its row; never raises for a failing case."""
    return _run_once(case, profile, seed)


def _reruns(spec: str) -> bool:
    # The L2 size changes which re-reads hit, decided while the kernel runs, and a core cap changes
    # the tiling; every other constant only re-prices the counters the run already recorded.
    return "l2_mb" in spec or "aiv_cores" in spec


def run_bench_what_if(case: Case, soc: str, seed: int, specs: Sequence[str]) -> list[BenchRow]:
    """One row per what-if constant set (specs[0] is the base, "" for the SoC's own) for case on
    SoC profile `soc`, in the order of specs. The case runs once under specs[0] and its launch
    reports are modeled again under each later set; a set that changes the L2 size (decided while
    the kernel runs) or caps the cores (the tiling) runs the case again. Never raises for a failing
    case."""
    rows: dict[int, BenchRow] = {}
    with _native.what_if(specs[0]):
        base = _run_once(case, _profile(soc), seed)
    base.what_if = specs[0]
    rows[0] = base
    later = [i for i in range(1, len(specs)) if not _reruns(specs[i])]
    rerun = [i for i in range(1, len(specs)) if _reruns(specs[i])]
    for i in later:  # the run log still holds the base run
        with _native.what_if(specs[i]):
            profile = _profile(soc)
            if base.status == "ok" and base.launches:
                row = summarize(case, profile, _native.last_run())
            else:  # nothing ran to model again: the base row's status and note
                row = BenchRow(**asdict(base))
        row.what_if = specs[i]
        rows[i] = row
    for i in rerun:
        with _native.what_if(specs[i]):
            row = _run_once(case, _profile(soc), seed)
        row.what_if = specs[i]
        rows[i] = row
    return [rows[i] for i in range(len(specs))]


def _profile(soc: str) -> dict[str, Any]:
    """The profile as the model sees it under the current what-if constants."""
    return next(p for p in _native.socs() if p["name"] == soc)


def _run_once(case: Case, profile: dict[str, Any], seed: int) -> BenchRow:
    reason = skip_reason(case, profile)
    if reason is not None:
        return BenchRow(case.op, case.name, case.dtype, case.shape, str(profile["name"]), "skipped",
                        min_bytes=case.min_bytes, note=reason)
    try:
        inputs = case.make_inputs(case_rng(case, seed))
        with _native.soc(str(profile["name"])):
            case.run(inputs)
            launches = _native.last_run()
    except AclnnError as err:
        status = "skipped" if err.status == _STATUS_INVALID else "failed"
        return BenchRow(case.op, case.name, case.dtype, case.shape, str(profile["name"]), status,
                        min_bytes=case.min_bytes, note=str(err))
    except Exception as err:  # noqa: BLE001 - one broken case must not stop the table
        return BenchRow(case.op, case.name, case.dtype, case.shape, str(profile["name"]), "failed",
                        min_bytes=case.min_bytes, note=f"{type(err).__name__}: {err}")
    return summarize(case, profile, launches)


def pct_of_ceiling(row: BenchRow) -> float | None:
    """How close the row comes to the best the cost model allows for its bytes: 100 * roofline_pct /
    ceiling_pct (None when the case did not run)."""
    if row.roofline_pct is None or not row.ceiling_pct:
        return None
    return 100.0 * row.roofline_pct / row.ceiling_pct


def add_official(rows: Sequence[BenchRow], case: Case, seed: int = 0) -> None:
    """Fills the comparison columns of `rows` (case on one SoC, one row per what-if set) under the constants
    each row was modeled with: Huawei's own kernel run on front end B where it runs (normgrad.opsnn), else
    the hand-written model of the official algorithm (normgrad.official_model), saying which and why.
    ops-nn's kernel runs once per launch key among the rows' constant sets (the platform its tiling sees and
    the L2 size, opsnn.launch_key) and its launch is priced under each row's constants, as our rows are
    (run_bench_what_if)."""
    runs: dict[tuple[str, str, int], opsnn.Measured] = {}
    with tempfile.TemporaryDirectory(prefix="normgrad-opsnn-costs-") as keep:
        for row in rows:
            with _native.what_if(row.what_if), _native.soc(row.soc):
                profile = _profile(row.soc)
                key = (row.soc, *opsnn.launch_key(row.soc))
                if key not in runs:
                    runs[key] = opsnn.measure(case, seed, row.soc, Path(keep) / str(len(runs)))
                measured = opsnn.price(runs[key], row.soc)
            _fill_official(row, case, profile, measured)


def _fill_official(row: BenchRow, case: Case, profile: dict[str, Any], measured: opsnn.Measured) -> None:
    if measured.us is not None:
        row.official_us = measured.us
        row.official_launches = measured.launches
        row.official_source = opsnn.MARK
    else:
        itemsize = {"float32": 4, "float16": 2, "bfloat16": 2}[case.dtype]
        estimate = official_model.estimate(case.op, case.params, itemsize, profile)
        if estimate is None:
            return
        row.official_us = estimate.us
        row.official_launches = len(estimate.launches)
        row.official_source = f"{opsnn.MODELED_MARK}: {measured.why_not}"
    if row.status == "ok":
        row.speedup = official_model.speedup(row.modeled_us, row.official_us)


def write_csv(rows: Sequence[BenchRow], path: Path, compare: bool = False) -> None:
    """One line per row, the BenchRow fields as columns (empty cell for None); the comparison
    columns only when compare."""
    names = [fl.name for fl in fields(BenchRow) if compare or fl.name not in COMPARE_FIELDS]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=names)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in asdict(row).items() if k in names})
