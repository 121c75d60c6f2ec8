"""Where kernels run: a real GPU, or Triton's CPU interpreter.

`select()` must run before any module with a `@triton.jit` kernel is imported: `@triton.jit`
reads TRITON_INTERPRET when it decorates, so flipping it later changes nothing.
"""

import importlib
import importlib.metadata
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path

_TRUTHY = ("1", "true", "yes", "on", "y")


def major_minor(version: str) -> tuple[int, ...]:
    """A version's major and minor numbers: "3.9.0+git1a2b" is (3, 9)."""
    return tuple(int(re.match(r"\d+", part)[0]) for part in version.split(".")[:2])


@dataclass(frozen=True)
class Runtime:
    kind: str  # "gpu" or "interpreter"
    device: str  # torch device string for test tensors
    description: str
    gpu: "Gpu | None" = None  # the device kernels run on, for a GPU runtime

    @property
    def is_gpu(self) -> bool:
        return self.kind == "gpu"


def interpreter_requested() -> bool:
    return os.environ.get("TRITON_INTERPRET", "").strip().lower() in _TRUTHY


def no_cuda_driver() -> bool:
    """True on a Linux machine whose CUDA driver library cannot be loaded: it has no usable
    GPU, and that is known without importing torch."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return True
    return False


def exit_unless_gpu(script: str) -> None:
    """For a lesson's experiment that times kernels on a GPU: where there is none, one line
    that says so, and exit status 2, instead of torch's traceback. Where there is one, a first
    line naming it, the versions and the date, so a stored output says where it was measured."""
    import sys

    if not no_cuda_driver():
        import torch

        if torch.cuda.is_available():
            print(measured_on(torch.cuda.get_device_name()), flush=True)
            return
    stored = Path(script).resolve().with_suffix(".out")
    if stored.is_relative_to(Path.cwd()):
        stored = stored.relative_to(Path.cwd())
    seen = f": what it printed on an H200 is in {stored}" if stored.exists() else ""
    print(
        f"{Path(script).name} needs an NVIDIA GPU, and this machine has none{seen}", file=sys.stderr
    )
    sys.exit(2)


def measured_on(device: str) -> str:
    """'NVIDIA H200, torch 2.11.0+cu130, triton 3.6.0, Python 3.12.3, 2026-12-03': the line a
    measurement's output starts with."""
    import datetime

    found = versions()
    return (
        f"{device}, torch {found['torch']}, triton {found['triton']}, "
        f"Python {found['python']}, {datetime.date.today().isoformat()}"
    )


@dataclass(frozen=True)
class Gpu:
    name: str
    capability: tuple[int, int]
    memory: int  # bytes


# the driver API's numbers for a device's compute capability (cuda.h, CUdevice_attribute)
CAPABILITY_MAJOR, CAPABILITY_MINOR = 75, 76


def first_gpu() -> Gpu | None:
    """The first CUDA device this process may use (CUDA_VISIBLE_DEVICES applies), asked of the
    driver itself: what torch.cuda would say, in a fraction of a second rather than the 4 s
    that importing torch took on an H100 machine, so that a file the grader answers without a
    judge (a stub, a syntax error) is answered as fast on a GPU as on a CPU. None where there is
    no driver or no device."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count, device = ctypes.c_int(), ctypes.c_int()
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value < 1:
        return None
    if cuda.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return None
    name = ctypes.create_string_buffer(256)
    major, minor, memory = ctypes.c_int(), ctypes.c_int(), ctypes.c_size_t()
    cuda.cuDeviceGetName(name, len(name), device)
    cuda.cuDeviceGetAttribute(ctypes.byref(major), CAPABILITY_MAJOR, device)
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), CAPABILITY_MINOR, device)
    cuda.cuDeviceTotalMem_v2(ctypes.byref(memory), device)
    return Gpu(name.value.decode(errors="replace"), (major.value, minor.value), memory.value)


def interpret_where_no_gpu_can_be() -> None:
    """For a process that imports torch before it can call select(): torch imports
    triton.language on its way in, and Triton's own jitted helpers (tl.cdiv ...) are then
    interpreted only if TRITON_INTERPRET was set first. select() decides everything else."""
    if no_cuda_driver():
        os.environ["TRITON_INTERPRET"] = "1"


def one_thread_when_interpreting() -> None:
    """Where kernels are interpreted, numpy and torch compute on one thread: the interpreter's
    tensors are small, and a pool's threads (numpy's BLAS, which tl.dot calls, and torch's)
    would only spin between its calls, on the cores that the grade's other processes need. On a
    2-core machine T1's and T4's references took 14-15 CPU-seconds to grade with them, 9
    without. Call it before numpy is imported: OpenBLAS reads its setting as it loads."""
    if interpreter_requested():
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        import torch

        torch.set_num_threads(1)


def select() -> Runtime:
    """GPU when CUDA is available and the interpreter was not asked for; else the interpreter.
    The GPU is found through the driver (first_gpu), so the grader never imports torch (the
    judge and the runner do)."""
    gpu = first_gpu()
    if gpu and not interpreter_requested():
        major, minor = gpu.capability
        return Runtime("gpu", "cuda", f"GPU {gpu.name} (sm_{major}{minor})", gpu)
    os.environ["TRITON_INTERPRET"] = "1"
    reason = "asked for" if gpu else "no GPU found"
    return Runtime("interpreter", "cpu", f"CPU interpreter (TRITON_INTERPRET=1, {reason})")


def versions() -> dict[str, str]:
    """Python's, torch's and triton's versions, from the installed packages' metadata (which
    needs no import); from the module itself for one installed without it (a source tree)."""
    found = {"python": platform.python_version()}
    for name in ("torch", "triton"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = importlib.import_module(name).__version__
    return found


_current: Runtime | None = None


def current() -> Runtime:
    """The runtime of this process, selected on first use and then fixed."""
    global _current
    if _current is None:
        _current = select()
    return _current
