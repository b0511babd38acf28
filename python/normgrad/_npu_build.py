"""What building the NPU extension (normgrad/csrc/npu_ops.cpp) needs besides torch_npu's own flags.

Used by setup.py (the real build, where torch_npu is importable) and by
tests/python/test_npu_extension.py (a syntax check against the headers of an unpacked torch_npu
wheel). Plain Python with no import of torch or torch_npu, so setup.py can load it by path.

The extension is built from a source tree (`pip install --no-build-isolation .` runs setup.py there),
never from an installed package, which ships neither csrc/ nor the op_host/ headers it also needs;
so every path here is relative to the repository root the caller passes, not to this file, which
is an installed copy when the tests run against the installed package.
"""

from __future__ import annotations

import re
from pathlib import Path

EXTENSION_NAME = "normgrad._npu_ops"
CSRC = Path("python") / "normgrad" / "csrc"  # in the repository
SOURCES = [CSRC / "npu_ops.cpp"]  # relative to the repository root, as setuptools wants them


def op_plugin_dir(torch_npu_include: Path) -> Path:
    """The directory that holds op_plugin/ (op_api_common.h and friends) in torch_npu's include tree."""
    return torch_npu_include / "third_party" / "op-plugin"


def current_version(torch_npu_include: Path, torch_version: str) -> int:
    """The CURRENT_VERSION op-plugin's headers need for this torch (e.g. 12 for torch 2.13).

    op-plugin's utils/Version.h numbers the releases (`#define V2R13 12`) and its headers pick
    per-version code with VERSION_BETWEEN(...) on CURRENT_VERSION, which the build must define;
    a wrong value selects another torch's includes (2.13 removed a header older versions use).
    """
    major, minor = (int(p) for p in re.match(r"(\d+)\.(\d+)", torch_version).groups())  # type: ignore[union-attr]
    header = op_plugin_dir(torch_npu_include) / "op_plugin" / "utils" / "Version.h"
    text = header.read_text()
    found = re.search(rf"^#define V{major}R{minor} (\d+)\s*$", text, re.MULTILINE)
    if found is None:
        raise ValueError(f"{header} has no V{major}R{minor}: this torch_npu's op-plugin does not know torch "
                         f"{torch_version}")
    return int(found.group(1))


def extension_flags(repo: Path, torch_npu_include: Path, torch_version: str, cxx11_abi: bool,
                    aclnn_base_dir: Path) -> list[str]:
    """g++ flags for npu_ops.cpp beyond torch's and torch_npu's include dirs.

    aclnn_base_dir holds aclnn/aclnn_base.h and aclnnop/aclnn_util.h, which our aclnnop headers
    include: $ASCEND_HOME_PATH/include on an Atlas machine, else the simulator's copies in
    sim/include (same declarations; torch_npu's wheel ships neither). It is searched last
    (-idirafter) so that torch_npu's acl/ headers win over anything of the same name in it.
    """
    return [
        f"-DCURRENT_VERSION={current_version(torch_npu_include, torch_version)}",
        f"-D_GLIBCXX_USE_CXX11_ABI={int(cxx11_abi)}",
        f"-I{repo / CSRC}",
        f"-I{repo / 'op_host' / 'op_api'}",  # our aclnnop/aclnn_*.h before CANN's of the same names
        f"-I{op_plugin_dir(torch_npu_include)}",
        f"-I{torch_npu_include / 'third_party' / 'acl' / 'inc'}",
        f"-idirafter{aclnn_base_dir}",
    ]
