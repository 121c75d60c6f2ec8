"""Compile a learner's kernels for an sm_90 (Hopper) GPU on a machine without one.

The CPU interpreter runs kernel code as Python and accepts things the GPU compiler rejects: a
helper function without @triton.jit, an fp16 accumulator carried through `acc += tl.dot(...)`,
`tl.dot` blocks smaller than 16 along K. `triton.compile` with an explicit GPUTarget needs no
GPU and no driver, so the grader compiles every kernel launch a case made, with the same
argument types, constexprs and launch options.

Compiling needs real `@triton.jit` functions, so it runs in a child process with the
interpreter off: `python -m drills.gpu_compile FILE` reads the launches as JSON on stdin.
"""

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from drills import catalog, runtime
from drills.testing import Case, Launch, explain, kernel_did_the_work, watch

SM90 = ("cuda", 90, 32)  # backend, compute capability, warp size
_OPTIONS = ("num_warps", "num_stages")


def _type_of(value) -> str:
    """Triton's signature string for one launch argument."""
    if isinstance(value, dict) and "tensor" in value:
        return "*" + value["tensor"]
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -(2**31) <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"cannot describe argument {value!r}")


_TRITON_DTYPES = {
    torch.float32: "fp32",
    torch.float16: "fp16",
    torch.bfloat16: "bf16",
    torch.float64: "fp64",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.bool: "i1",
}


def describe(launch: Launch) -> dict:
    """A launch as JSON: tensors become their element type, the rest stays as it is."""
    args = {}
    for name, value in launch.args.items():
        if isinstance(value, torch.Tensor):
            args[name] = {"tensor": _TRITON_DTYPES[value.dtype]}
        elif value is None or isinstance(value, (bool, int, float, str)):
            args[name] = value
    return {"kernel": launch.kernel, "args": args}


def _find_kernel(module, name: str):
    """The JITFunction called `name`: in the module, or in a module it imported it from."""
    from triton.runtime.jit import JITFunction

    candidates = [getattr(module, name, None)]
    candidates += [getattr(v, name, None) for v in vars(module).values() if hasattr(v, name)]
    for kernel in candidates:
        # autotune and heuristics wrap the JITFunction, as .fn
        while kernel is not None and not isinstance(kernel, JITFunction):
            kernel = getattr(kernel, "fn", None)
        if kernel is not None:
            return kernel
    raise LookupError(f"no @triton.jit function named {name} in {module.__file__}")


def compile_one(module, launch: dict) -> str | None:
    """None if the launch compiles for sm_90, else the compiler's message and a hint."""
    import triton
    from triton.backends.compiler import GPUTarget

    kernel = _find_kernel(module, launch["kernel"])
    signature, constexprs = {}, {}
    for param in kernel.params:
        value = launch["args"].get(param.name)
        if param.is_constexpr or value is None:
            signature[param.name] = "constexpr"
            constexprs[param.name] = value
        else:
            signature[param.name] = _type_of(value)
    options = {k: launch["args"][k] for k in _OPTIONS if k in launch["args"]}
    source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
    try:
        triton.compile(source, target=GPUTarget(*SM90), options=options)
    except Exception as e:  # noqa: BLE001 - any compiler failure is the learner's to read
        message = str(e).strip()
        return f"{type(e).__name__}: {message}\n{explain(message)}".rstrip()
    return None


def failures(path: str, launches: list[Launch]) -> list[str]:
    """Compile each distinct launch in a child process; the messages of those that fail."""
    described = []
    for launch in launches:
        d = describe(launch)
        if d not in described:
            described.append(d)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run(
        [sys.executable, "-m", "drills.gpu_compile", path],
        input=json.dumps(described),
        capture_output=True,
        text=True,
        cwd=catalog.ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        return [f"the compile check itself failed:\n{done.stderr[-2000:]}"]
    return json.loads(done.stdout)


def check_compiles(case: Case) -> None:
    """Fail the test unless every kernel the case launches compiles for a GPU.

    On a GPU, launching compiles for real, so running the case is the check. On the
    interpreter, the case's launches are recorded and compiled for sm_90 in a child process.
    """
    inputs = (g.tensor for g in case.inputs.values())
    watched = watch(case.fn, *inputs, out=case.out.tensor, **case.kwargs)
    cheated = kernel_did_the_work(
        watched.launches, watched.torch_ops, case.forbidden_ops, case.hints
    )
    if cheated:
        pytest.fail(f"case {case.name}: {cheated}", pytrace=False)
    if runtime.current().is_gpu:
        return
    errors = failures(inspect.getfile(case.fn), watched.launches)
    if errors:
        pytest.fail(
            f"case {case.name}: runs on the CPU interpreter but does not compile for a GPU "
            f"(sm_90):\n{errors[0]}",
            pytrace=False,
        )


def main() -> int:
    from drills.pytest_plugin import load

    module = load(Path(sys.argv[1]))
    launches = json.load(sys.stdin)
    errors = [compile_one(module, launch) for launch in launches]
    print(json.dumps([e for e in errors if e]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
