"""A module of the source tree's normgrad loaded from a site-packages of its own, as an installed copy
is: a test then sees what that module does where the repository is not beside it."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def installed_copy(module: str, site_packages: Path) -> ModuleType:
    """python/normgrad/<module>.py, copied to site_packages/normgrad/ and loaded from there."""
    copy = site_packages / "normgrad" / f"{module}.py"
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "python" / "normgrad" / f"{module}.py", copy)
    spec = importlib.util.spec_from_file_location(f"installed_{module}", copy)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded
