"""Which SoC profile kernels run on (process default and per-context choice), the what-if
cost constants, and the simulator's other reports (profiles, self-check, graph ops, op defs)."""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
from collections.abc import Iterator
from typing import Any

from normgrad._native import library
from normgrad.errors import SocError


def socs() -> list[dict[str, Any]]:
    """Every SoC profile the simulator models (normgradSimSocsJson), as dicts."""
    data = library.parse_json(library.load().normgradSimSocsJson(), "normgradSimSocsJson")
    if isinstance(data, dict) and "socs" in data:
        data = data["socs"]
    return list(data)



def soc_names() -> list[str]:
    return [str(p["name"]) for p in socs()]


# The SoC of the current context (None: the process-wide default). See the package docstring.
_context_soc: contextvars.ContextVar[str | None] = contextvars.ContextVar("normgrad_soc", default=None)


def apply_soc() -> ctypes.CDLL:
    """The library, with the calling thread's C-side SoC set to the current context's choice."""
    lib = library.load()
    name = _context_soc.get()
    lib.normgradSimSetThreadSoc(name.encode() if name else None)
    return lib


def get_soc() -> str:
    """The name of the SoC profile kernels run on in the current context."""
    name = apply_soc().normgradSimGetSoc()
    return name.decode() if name else ""


def _known_soc(func: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{func}: name must be a str, got {type(name).__name__}")
    known = soc_names()
    if name not in known:
        raise SocError(f"{func}: unknown SoC '{name}'; expected one of {', '.join(known)}")
    return name


def set_soc(name: str) -> None:
    """Makes kernels run on the SoC profile `name`, a family ('ascend910b', 'ascend910_93',
    'ascend910', 'ascend950': its default chip) or a chip of CANN's platform configuration ('Ascend910B3'),
    process-wide: in every thread and context not inside a `with soc(...)` block (such a block's
    choice wins within it). Raises SocError (a ValueError) naming the known profiles for any other name."""
    _known_soc("set_soc", name)
    if library.load().normgradSimSetSoc(name.encode()) != 0:
        raise SocError(f"set_soc: unknown SoC '{name}'; expected one of {', '.join(soc_names())}")


@contextlib.contextmanager
def soc(name: str) -> Iterator[str]:
    """Runs the `with` block on SoC profile `name`, in this context only: other threads (and other
    asyncio tasks) keep theirs. The previous choice is back after the block."""
    token = _context_soc.set(_known_soc("soc", name))
    try:
        yield name
    finally:
        _context_soc.reset(token)


def set_what_if(spec: str) -> None:
    """Replaces cost-model constants of every SoC profile, e.g. 'launch_us=3,sync_us=1' (keys in
    docs/sim.md); '' restores the profiles' own. Raises ValueError naming a bad key or value."""
    if not isinstance(spec, str):
        raise TypeError(f"set_what_if: spec must be a str, got {type(spec).__name__}")
    if library.load().normgradSimSetCostOverrides(spec.encode()) != 0:
        raise ValueError(f"set_what_if: {library.recent_error()}")


@contextlib.contextmanager
def what_if(spec: str) -> Iterator[str]:
    """Runs the `with` block with the what-if constants of spec, then restores the profiles' own."""
    set_what_if(spec)
    try:
        yield spec
    finally:
        set_what_if("")


def self_check() -> tuple[bool, str]:
    """normgradSimSelfCheck: (passed, message) of the simulator's built-in sanity run."""
    buf = ctypes.create_string_buffer(4096)
    status = apply_soc().normgradSimSelfCheck(buf, len(buf))
    return status == 0, buf.value.decode(errors="replace")


def graph_ops() -> Any:
    """normgradGraphOpsJson: the graph-mode operator prototypes."""
    return library.parse_json(library.load().normgradGraphOpsJson(), "normgradGraphOpsJson")


def op_defs() -> Any:
    """normgradOpDefsJson: the operator definitions (schema) the library declares."""
    return library.parse_json(library.load().normgradOpDefsJson(), "normgradOpDefsJson")
