"""Real-model shapes of every operator, for `normgrad check` and `normgrad bench`.

Each operator module defines `check_cases() -> list[Case]` and `bench_cases() -> list[Case]`.
"""

from __future__ import annotations

import importlib

from normgrad.cases.base import Case, Tolerance

OPERATOR_MODULES = ("group_norm_grad", "layer_norm_grad", "batch_norm_elemt_grad")


def _modules():
    for name in OPERATOR_MODULES:
        try:
            yield importlib.import_module(f"normgrad.cases.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"normgrad.cases.{name}":
                raise


def check_cases(op: str | None = None) -> list[Case]:
    return [c for m in _modules() for c in m.check_cases() if op is None or c.op == op]


def bench_cases(op: str | None = None) -> list[Case]:
    return [c for m in _modules() for c in m.bench_cases() if op is None or c.op == op]


__all__ = ["Case", "Tolerance", "check_cases", "bench_cases", "OPERATOR_MODULES"]
