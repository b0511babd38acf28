"""Which front end kernel launches run on. The library reads NORMGRAD_FRONTEND at every launch:
'sim' (or unset) is the simulator's own Ascend C API (front end A); 'cann' is the kernels compiled
against CANN's Ascend C implementation in CPU-debug mode, run on the instruction-level model (front
end B, sim/cann_cpu, built by ./build.sh --cann-cpu). normgradSimCannFrontEnd says whether front end B
can run a SoC's launches, and where its runner is or why not."""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterator

from normgrad._native import library
from normgrad.errors import FrontEndError

FRONTEND_ENV = "NORMGRAD_FRONTEND"
FRONT_ENDS = ("sim", "cann")

# normgradSimCannFrontEnd's statuses (normgrad_sim.h).
CANN_READY, CANN_NO_BUILD_FOR_SOC, CANN_NOT_BUILT, CANN_UNKNOWN_SOC = 0, 1, 2, 3


def selected_front_end() -> str:
    """The front end NORMGRAD_FRONTEND selects ('sim' when unset or empty); ValueError for another value."""
    name = os.environ.get(FRONTEND_ENV) or "sim"
    if name not in FRONT_ENDS:
        raise ValueError(f"{FRONTEND_ENV} is '{name}': expected one of {', '.join(FRONT_ENDS)}")
    return name


def cann_readiness(soc: str) -> tuple[int, str]:
    """(status, text) of normgradSimCannFrontEnd for SoC profile soc: CANN_READY and the runner's path,
    or another status and why front end B cannot run that SoC's launches."""
    buf = ctypes.create_string_buffer(2048)
    status = library.load().normgradSimCannFrontEnd(soc.encode(), buf, len(buf))
    return int(status), buf.value.decode(errors="replace")


def require_cann(soc: str) -> None:
    """Raises FrontEndError unless front end B can run soc's launches."""
    status, text = cann_readiness(soc)
    if status != CANN_READY:
        raise FrontEndError(text)


@contextlib.contextmanager
def use_front_end(name: str) -> Iterator[str]:
    """Runs the `with` block's launches on front end `name` ('sim' or 'cann'), process-wide (the
    library reads the environment at each launch); the previous NORMGRAD_FRONTEND is back after."""
    if name not in FRONT_ENDS:
        raise ValueError(f"use_front_end: '{name}' is not a front end; expected one of "
                         f"{', '.join(FRONT_ENDS)}")
    previous = os.environ.get(FRONTEND_ENV)
    os.environ[FRONTEND_ENV] = name
    try:
        yield name
    finally:
        if previous is None:
            del os.environ[FRONTEND_ENV]
        else:
            os.environ[FRONTEND_ENV] = previous
