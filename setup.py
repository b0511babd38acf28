"""Builds libnormgrad with CMake and ships it inside the normgrad package; where torch_npu is
importable (an Ascend host with CANN), also the NPU extension normgrad._npu_ops (csrc/npu_ops.cpp)."""

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithCMake(build_py):
    """Runs the CMake build of the shared library before packaging the Python files."""

    def run(self) -> None:
        build_dir = ROOT / "build" / "pip"
        build_dir.mkdir(parents=True, exist_ok=True)
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.check_call(
            ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release", *generator]
        )
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "normgrad", "-j", jobs])
        super().run()
        target = Path(self.build_lib) / "normgrad" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build_dir / "libnormgrad.so", target / "libnormgrad.so")


def _npu_build_module():
    """python/normgrad/_npu_build.py, loaded by path: the package itself is not importable yet."""
    path = ROOT / "python" / "normgrad" / "_npu_build.py"
    spec = importlib.util.spec_from_file_location("_npu_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def npu_extension() -> dict:
    """setup() arguments for the NPU extension, or none where torch_npu cannot be imported.

    Importing torch_npu needs CANN (libascendcl, libhccl, ...): a machine without it builds exactly
    what it built before. With pip, torch and torch_npu are only visible to this script under
    `pip install --no-build-isolation .` (docs/torch.md).
    """
    try:
        import torch
        import torch_npu  # noqa: F401
        from torch.utils.cpp_extension import BuildExtension
        from torch_npu.utils.cpp_extension import NpuExtension
    except Exception as err:  # ImportError, or OSError/RuntimeError from a CANN library missing
        if importlib.util.find_spec("torch_npu") is not None:
            print(f"normgrad: torch_npu is installed but cannot be imported ({err}); not building the NPU "
                  f"extension", flush=True)
        return {}
    build = _npu_build_module()
    cann = os.environ.get("ASCEND_HOME_PATH")
    if not cann or not (Path(cann) / "include" / "aclnn" / "aclnn_base.h").is_file():
        raise RuntimeError("normgrad: torch_npu imports but $ASCEND_HOME_PATH/include/aclnn/aclnn_base.h is "
                           "missing; source CANN's set_env.sh before building the NPU extension")
    flags = build.extension_flags(ROOT, Path(torch_npu.__file__).parent / "include", torch.__version__,
                                  torch._C._GLIBCXX_USE_CXX11_ABI, Path(cann) / "include")
    ext = NpuExtension(build.EXTENSION_NAME, [str(s.relative_to(ROOT)) for s in build.SOURCES],
                       extra_compile_args=flags)
    return {"ext_modules": [ext], "cmdclass": {"build_ext": BuildExtension.with_options(use_ninja=False)}}


_npu = npu_extension()
setup(ext_modules=_npu.get("ext_modules", []),
      cmdclass={"build_py": BuildWithCMake, **_npu.get("cmdclass", {})})
