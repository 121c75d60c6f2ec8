"""drills.judge.source: what the judge learns from a learner's file without running it.

Every correct file in the repository (solutions, stubs, positive controls) must read as clean,
whatever style it is written in; every way out of the host function that the judge knows of
must be named, with its line; and the compile-only kernel module must hold the kernels and
nothing that could run Python the learner chose.
"""

import linecache
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import triton
from triton.backends.compiler import GPUTarget
from triton.runtime.jit import JITFunction

from drills import catalog, controls
from drills.judge import reading, source, syntax

ROOT = Path(__file__).resolve().parent.parent
# the drills' references, as the grader reads them (not t4_matmul_persistent.py: it is the
# benchmark's, imported by the repository's own code, never graded)
SOLUTIONS = [drill.source("solutions") for drill in catalog.DRILLS]
STUBS = sorted((ROOT / "drills" / "stubs").glob("t*.py"))
POSITIVES = sorted((ROOT / "tests" / "positives").glob("t*/*.py"))
ENTRIES = {"t1_add": "add", "t2_softmax": "softmax", "t3_matmul": "matmul", "t4_matmul": "matmul"}
ENTRIES["t5_online_softmax"] = "softmax"
ENTRIES["t6_attention"] = "attention"


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT))


def entry_of(path: Path) -> str:
    """The host function a file's drill calls: positives sit in a folder named for the drill."""
    return ENTRIES.get(path.stem) or ENTRIES[path.parent.name]


def read(path: Path) -> source.LearnerSource:
    """The file as the judge reads it: for a control that is edits of a reference, the file the
    edits make (drills/controls.py)."""
    with tempfile.TemporaryDirectory() as folder:
        return source.read(controls.standalone(path, Path(folder)), shown(path))


def learner(tmp_path: Path, text: str) -> source.LearnerSource:
    path = tmp_path / "t1_add.py"
    path.write_text(textwrap.dedent(text))
    return source.read(path, "mine/t1_add.py")


def load_kernels(text: str) -> dict:
    """Exec a kernel module as the judge does: its text registered under a name that is no
    file, so that triton reads the kernels' source from this text, not from a disk the runner
    can write to."""
    name = "<kernels>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    namespace: dict = {"__name__": "learner_kernels"}
    exec(compile(text, name, "exec"), namespace)  # noqa: S102 - the module source.py vetted
    return namespace


def jit_functions(learner_source: source.LearnerSource) -> dict:
    """The kernels of its kernel module, as JITFunctions (under the interpreter triton.jit
    returns an InterpretedFunction, whose .fn is the plain function)."""
    namespace = load_kernels(learner_source.kernel_module()[0])
    names = [n for n in learner_source.jit_function_names() if n in namespace]
    for name in names:
        namespace[name] = JITFunction(getattr(namespace[name], "fn", namespace[name]))
    return {name: namespace[name] for name in names}


def left_out(learner_source: source.LearnerSource) -> str:
    return "\n".join(map(str, learner_source.kernel_module()[1]))


# ---------------------------------------------------------------------------------------------
# The repository's own files
# ---------------------------------------------------------------------------------------------


# positives whose host code does on purpose what the reading points out (it is feedback only)
HOST_WORK_ON_PURPOSE = {
    "host_imports_freely.py",
    "ops_matmul_split_k.py",
    "inductor_generated.py",
    "libentry_wrapper.py",
    "tle_namespace.py",
}


@pytest.mark.parametrize(
    "path",
    [p for p in SOLUTIONS + STUBS + POSITIVES if p.name not in HOST_WORK_ON_PURPOSE],
    ids=shown,
)
def test_correct_files_have_no_escapes(path):
    findings = read(path).escapes()
    assert findings == [], "\n".join(map(str, findings))


@pytest.mark.parametrize("path", STUBS, ids=shown)
def test_stubs_raise_not_started(path):
    stub = read(path)
    assert stub.raises_not_started(entry_of(path))
    assert stub.defines_function(entry_of(path))


@pytest.mark.parametrize("path", SOLUTIONS, ids=shown)
def test_solutions_do_not_raise_not_started(path):
    assert not read(path).raises_not_started(entry_of(path))


def test_t4_stub_leaves_the_epilogue_exercise_undefined():
    stub = read(ROOT / "drills" / "stubs" / "t4_matmul.py")
    assert not stub.defines_function("matmul_bias_gelu")
    assert read(ROOT / "solutions" / "t4_matmul.py").defines_function("matmul_bias_gelu")


@pytest.mark.parametrize("path", SOLUTIONS + STUBS + POSITIVES, ids=shown)
def test_kernel_module_keeps_every_kernel_on_its_line(path):
    learner_source = read(path)
    text, findings = learner_source.kernel_module()
    assert findings == [], "\n".join(map(str, findings))
    lines = text.split("\n")
    original = learner_source.text.split("\n")
    for name in learner_source.jit_function_names():
        line = next(i for i, s in enumerate(original) if s.startswith(f"def {name}("))
        assert lines[line] == original[line]
        assert lines[line - 1].startswith("@triton.jit")
    assert set(jit_functions(learner_source)) == set(learner_source.jit_function_names())


def test_the_interpreter_changes_no_verdict(tmp_path):
    """Under TRITON_INTERPRET=1 triton.language's own @jit functions are the interpreter's
    wrappers: the judge must still read the same files the same way."""
    script = (
        "import sys; from pathlib import Path; from drills.judge import source\n"
        "for name in sys.argv[1:]:\n"
        "    s = source.read(Path(name), name)\n"
        "    print(name, s.escapes(), s.kernel_module()[1])\n"
    )
    read_as = [p for p in SOLUTIONS + POSITIVES if p.name not in HOST_WORK_ON_PURPOSE]
    files = [str(controls.standalone(p, tmp_path / shown(p))) for p in read_as]
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script, *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"{name} [] []" for name in files]


F16 = "*fp16"
COMPILED = {
    "t1_add": (
        "add_kernel",
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"},
        {"BLOCK_SIZE": 1024},
    ),
    "t2_softmax": (
        "softmax_kernel",
        {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32"}
        | {"stride_x_row": "i32", "stride_out_row": "i32"},
        {"BLOCK_SIZE": 1024, "ROWS_PER_PROGRAM": 1},
    ),
    "t3_matmul": (
        "matmul_kernel",
        {"a_ptr": F16, "b_ptr": F16, "c_ptr": F16, "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
    ),
    # with a bias, so that the epilogue's gelu, known_multiple and grouped_tile compile too
    "t4_matmul": (
        "matmul_kernel",
        {"a_ptr": F16, "b_ptr": F16, "c_ptr": F16, "bias_ptr": F16, "M": "i32", "N": "i32"}
        | {"K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32"}
        | {"stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32"},
        {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
        | {"ALIGN": 8},
    ),
    # the second kernel: the combine and the writes (the first is its loop without them)
    "t5_online_softmax": (
        "normalize_kernel",
        {"x_ptr": "*fp32", "out_ptr": "*fp32", "max_ptr": "*fp32", "sum_ptr": "*fp32"}
        | {"n_cols": "i32", "stride_x_row": "i32", "stride_out_row": "i32", "part_cols": "i32"},
        {"PARTS": 3, "PARTS_BLOCK": 4, "BLOCK_SIZE": 4096},
    ),
    # causal, with head_dim padded: every mask and the loop's early end compile
    "t6_attention": (
        "attention_kernel",
        {"q_ptr": F16, "k_ptr": F16, "v_ptr": F16, "out_ptr": F16, "lse_ptr": "*fp32"}
        | {f"stride_{t}{d}": "i32" for t in "qkvo" for d in ("b", "h", "m" if t in "qo" else "n")}
        | {"stride_lb": "i32", "stride_lh": "i32", "n_heads": "i32", "seq_q": "i32"}
        | {"seq_k": "i32", "head_dim": "i32", "qk_scale": "fp32"},
        {"CAUSAL": True, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_D": 128},
    ),
}


def compile_for_sm90(path: Path) -> bool:
    """Whether the kernel module of a reference compiles to PTX for sm_90."""
    kernel, types, constexprs = COMPILED[path.stem]
    fn = jit_functions(read(path))[kernel]
    signature = types | dict.fromkeys(constexprs, "constexpr")
    ast_source = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    compiled = triton.compile(ast_source, target=GPUTarget("cuda", 90, 32))
    return "ptx" in compiled.asm


def in_a_compiling_process(function: str, *paths: Path) -> subprocess.CompletedProcess:
    """print(`function`(path)) for each path, `function` of this module, in one Python of its
    own with the interpreter off, as the judge compiles: where triton.language was imported
    under TRITON_INTERPRET=1, its own helpers (tl.cdiv) are interpreted functions, which the
    compiler cannot call, and a kernel run on the interpreter leaves triton.language patched (as
    other tests of the same worker do), so that the compiler then fails elsewhere."""
    environment = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, 'tests')\n"
        f"from test_self_source import {function}\n"
        "for path in sys.argv[1:]:\n"
        f"    print({function}(Path(path)))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, paths)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_solution_kernel_modules_compile_for_sm90():
    done = in_a_compiling_process("compile_for_sm90", *SOLUTIONS)  # one process: 4 s here
    assert done.returncode == 0, done.stderr[-3000:]
    answers = dict(zip(map(shown, SOLUTIONS), done.stdout.split(), strict=True))
    assert answers == dict.fromkeys(map(shown, SOLUTIONS), "True"), done.stderr[-3000:]


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def test_a_syntax_error_is_reported_like_an_import_error(tmp_path):
    path = tmp_path / "t1_add.py"
    path.write_text("import torch\ndef add(x, y, out=None)\n    return x\n")
    with pytest.raises(syntax.SourceError) as error:
        source.read(path, "mine/t1_add.py")
    assert str(error.value) == (
        "mine/t1_add.py has a syntax error on line 2: expected ':'\n    def add(x, y, out=None)"
    )


def test_a_missing_file_is_a_source_error(tmp_path):
    with pytest.raises(syntax.SourceError, match="mine/t1_add.py does not exist"):
        source.read(tmp_path / "nowhere.py", "mine/t1_add.py")


def test_a_file_nested_too_deeply_to_check_is_a_source_error(tmp_path):
    path = tmp_path / "t1_add.py"
    path.write_text("x = " + " + ".join(["1"] * (syntax.MAX_DEPTH + 1)) + "\n")
    with pytest.raises(syntax.SourceError, match="nests expressions too deeply"):
        source.read(path, "mine/t1_add.py")


def test_a_finding_names_its_line():
    assert str(reading.Finding(12, "imports ctypes")) == "line 12: imports ctypes"


# ---------------------------------------------------------------------------------------------
# escapes(): hostile host code
# ---------------------------------------------------------------------------------------------

# A correct t1 file; each hostile line below goes into a helper function after it.
BASE = """\
import logging
import operator
import os
import typing
import warnings

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)


def add(x, y, out=None):
    out = torch.empty_like(x) if out is None else out
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
"""
BASE_LINES = BASE.count("\n")

HOSTILE = [
    ("import ctypes", "imports ctypes"),
    ("import sys", "imports sys"),
    ("import gc", "imports gc"),
    ("import importlib", "imports importlib"),
    ("import numpy as np", "imports numpy"),
    ("import solutions.t1_add", "imports solutions.t1_add"),
    ("from solutions import t1_add", "imports solutions"),
    ("from drills.judge.testing import watch", "imports drills.judge.testing"),
    ("from drills import NotStarted, testing", "imports from drills"),
    ("from . import t1_add", "imports ."),
    ("import builtins", "imports builtins"),
    ("exec('x = 1')", "uses exec()"),
    ("eval('1')", "uses eval()"),
    ("open('/etc/passwd').read()", "uses open()"),
    ("__import__('os')", "uses __import__()"),
    ("getattr(torch, 'ad' + 'd')(x, y)", "uses getattr() with a computed name"),
    ("getattr(torch, 'add')(x, y)", "uses torch.add"),
    ("getattr(x, '__class__')", "reads __class__"),
    ("f = getattr", "uses getattr() with a computed name"),
    ("vars(x)", "uses vars()"),
    ("setattr(out, 'x', 1)", "uses setattr()"),
    ("x.__class__", "reads __class__"),
    ("e.__traceback__.tb_frame.f_back.f_globals", "reads f_globals"),
    ("e.__traceback__.tb_frame.f_back.f_globals", "reads tb_frame"),
    ("logging.currentframe().f_back", "uses logging.currentframe"),
    ("logging.lastResort.stream", "uses logging.lastResort"),
    ("logging.getLogger('torch').handlers[0].stream", "reads handlers"),
    ("match e:\n        case object(f_globals=g): pass", "reads f_globals"),
    ("x.untyped_storage().from_file('/etc/passwd', False, 8)", "reads from_file"),
    ("warnings.formatwarning('', UserWarning, '/etc/passwd', 1)", "uses warnings.formatwarning"),
    ("__builtins__", "reads __builtins__"),
    ("os.kill(os.getppid(), 9)", "uses os.kill"),
    ("os.system('true')", "uses os.system"),
    ("os.path.os.system('true')", "reaches os through os.path"),
    ("from os import system", "uses os.system"),
    ("torch.add(x, y, out=out)", "uses torch.add"),
    ("torch.nn.functional.softmax(x, -1)", "uses torch.nn.functional.softmax"),
    ("import torch.nn.functional as F", "uses torch.nn.functional"),
    ("from torch import add", "uses torch.add"),
    ("torch.ops.aten.add(x, y)", "uses torch.ops.aten.add"),
    ("torch.load('answer.pt')", "uses torch.load"),
    ("torch.compile(add)", "uses torch.compile"),
    ("torch._C", "reads _C"),
    ("torch.Tensor.add(x, y)", "uses torch.Tensor.add"),
    ("torch.backends.cudnn.torch.add(x, y)", "reaches torch through torch.backends.cudnn"),
    ("triton.backends.nvidia.driver.compile_module_from_src('', 'x')", "uses triton.backends"),
    ("from triton.runtime.cache import os", "uses triton.runtime.cache"),
    pytest.param(
        "from triton.runtime.driver import os",
        "reaches os through triton.runtime.driver",
        id="from triton.runtime.driver import os",
        marks=pytest.mark.skipif(
            not hasattr(sys.modules["triton.runtime.driver"], "os"),
            reason="triton.runtime.driver imports os from triton 3.7 on",
        ),
    ),
    ("triton.compile(out)", "uses triton.compile"),
    ("triton.testing.do_bench(add)", "uses triton.testing"),
    ("triton.runtime.driver.active.launcher_cls(x, y)", "uses triton.runtime.driver.active.l"),
    ("triton.knobs.runtime.launch_enter_hook = print", "uses triton.knobs"),
    ("triton.runtime.jit.JITFunction.run = print", "assigns to triton.runtime.jit.JITFunction"),
    ("tl.core.builtins.exec('x')", "reaches builtins through triton.language.core"),
    ("tl.extra.modules['os'].system('x')", "reaches triton.language.extra.modules, which comes"),
    ("tl.str_to_ty('tensordesc<fp16[16]>,print(1)', None)", "uses triton.language.str_to_ty"),
    ("operator.attrgetter('__class__')(x)", "uses operator.attrgetter"),
    ("typing.get_type_hints(add)", "uses typing.get_type_hints"),
    ("typing.sys.modules", "reaches sys through typing"),
    ("lib = torch", "passes the module torch around as a value"),
    ("x.sum()", "calls .sum() on a tensor (torch computes outside the kernel)"),
    ("out.numpy()", "calls .numpy() on a tensor"),
    ("x.item()", "calls .item() on a tensor"),
    ("out.copy_(x.add(y))", "calls .add() on a tensor"),
    ("torch.empty_like(x).exp_()", "calls .exp_() on a tensor"),
    ("(x + y).softmax(-1)", "calls .softmax() on a tensor"),
]


@pytest.mark.parametrize(
    ("line", "finding"), HOSTILE, ids=[getattr(h, "id", None) or h[0] for h in HOSTILE]
)
def test_escapes_name_each_way_out(tmp_path, line, finding):
    findings = learner(tmp_path, BASE + f"\n\ndef helper(x, y, out, e):\n    {line}\n").escapes()
    assert any(f.what.startswith(finding) for f in findings), findings
    assert all(f.line >= BASE_LINES + 4 for f in findings)  # in the helper, not in BASE


def test_the_base_of_the_hostile_files_is_clean(tmp_path):
    assert learner(tmp_path, BASE).escapes() == []


def test_rebinding_a_builtin_at_module_level_still_reads_the_builtin(tmp_path):
    findings = learner(tmp_path, BASE + "run = exec\nexec = exec\n").escapes()
    assert [f.what for f in findings] == ["uses exec()", "uses exec()"]


def test_a_default_value_is_evaluated_outside_the_function(tmp_path):
    findings = learner(tmp_path, BASE + "def helper(exec=exec):\n    exec('1')\n").escapes()
    assert [str(f) for f in findings] == [f"line {BASE_LINES + 1}: uses exec()"]


def test_faking_a_main_block_is_flagged(tmp_path):
    text = BASE + "__name__ = '__main__'\nif __name__ == '__main__':\n    import sys\n"
    assert [f.what for f in learner(tmp_path, text).escapes()] == ["assigns __name__"]


def test_kernel_bodies_are_not_host_code(tmp_path):
    text = BASE.replace("    offs = ", "    print(x_ptr.dtype)\n    offs = ", 1)
    assert learner(tmp_path, text).escapes() == []


# ---------------------------------------------------------------------------------------------
# escapes(): correct code written in other styles
# ---------------------------------------------------------------------------------------------

TUTORIAL_02 = """\
import torch
import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


@triton.jit
def softmax_kernel(
    output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
    BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr,
):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask,
                      other=-float("inf"))
        numerator = tl.exp(row - tl.max(row, axis=0))
        output = numerator / tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, output, mask=mask)


properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]
target = triton.runtime.driver.active.get_current_target()
kernels = {}


def softmax(x, out=None):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x) if out is None else out
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                   BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages,
                                   num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    occupancy = min(NUM_REGS // (n_regs * WARP_SIZE * num_warps), SIZE_SMEM // size_smem)
    num_programs = min(NUM_SM * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE,
                                 num_stages)
    return y


if __name__ == "__main__":
    import sys
    torch.manual_seed(0)
    x = torch.randn(1823, 781, device=DEVICE)
    print(torch.allclose(softmax(x), torch.softmax(x, axis=1)), file=sys.stderr)
"""

# PyTorch's test kernels: a string annotation, options on the decorator, an autotuned kernel
PYTORCH_TESTS = """\
import torch
import triton
from triton import language as tl


@triton.jit(do_not_specialize=["n_elements"])
def add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": 128}, num_stages=3, num_warps=8)], key=[]
)
@triton.jit
def add_kernel_autotuned(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE)


def add(x: torch.Tensor, y: torch.Tensor, out=None) -> torch.Tensor:
    output = torch.zeros_like(x) if out is None else out
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel_autotuned[grid](x, y, output, n_elements)
    return output
"""

# FlagGems and Liger style: a logger, a cached helper, wrapper classes, `input` as a name, a set
# of seen shapes, the device guard, and the launch three calls away
LIBRARY_STYLE = """\
from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Optional

import torch
import triton
import triton.language as tl
from triton import jit

logger: logging.Logger = logging.getLogger(__name__)
_SEEN: set = set()
HAS_TRITON = triton is not None and not TYPE_CHECKING


@functools.lru_cache(maxsize=None)
def block_size_for(n: int) -> int:
    return min(1024, triton.next_power_of_2(n))


@jit
def _add_kernel(X, Y, OUT, N, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    total = tl.load(X + offsets, mask=mask) + tl.load(Y + offsets, mask=mask)
    tl.store(OUT + offsets, total, mask=mask)


def _launch(input: torch.Tensor, other: torch.Tensor, out: torch.Tensor) -> None:
    n = input.numel()
    block = block_size_for(n)
    if (n, input.dtype) not in _SEEN:
        logger.debug("GEMS ADD %s", tuple(input.shape))
        _SEEN.add((n, input.dtype))
    with torch.cuda.device(input.device):
        _add_kernel[(triton.cdiv(n, block),)](input, other, out, n, BLOCK_SIZE=block)


class AddFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, other):
        out = torch.empty_like(input)
        _launch(input, other, out)
        return out


class Adder:
    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def __call__(self, x, y, out: Optional[torch.Tensor] = None):
        if out is None:
            return AddFunction.apply(x, y)
        _launch(x, y, out)
        return out


_adder = Adder("add")


def add(x, y, out=None):
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float16, torch.float32):
        raise TypeError(f"x must be a float tensor, got {type(x).__name__}")
    kwargs = {"x": x, "y": y}
    for name, value in kwargs.items():
        assert value.is_contiguous(), name
    return _adder(x, y, out)
"""

# tutorial 09: tensor descriptors made on the host, a scratch allocator, constexpr globals
TUTORIAL_09 = """\
import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

DEBUG = os.environ.get("KERNEL_DEBUG") == "1"
BLOCK_M = tl.constexpr(128)
BLOCK_N = tl.constexpr(BLOCK_M * 2 // 2)


@triton.jit
def matmul_kernel_descriptor(a_desc, b_desc, c_desc, M, N, K, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


def alloc_fn(size: int, alignment: int, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def matmul(a, b, out=None):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16) if out is None else out
    triton.set_allocator(alloc_fn)
    a_desc = TensorDescriptor.from_tensor(a, [128, 64])
    b_desc = TensorDescriptor(b, b.shape, b.stride(), [128, 64])
    c_desc = TensorDescriptor.from_tensor(c, [128, 128])
    grid = (triton.cdiv(M, 128), triton.cdiv(N, 128))
    matmul_kernel_descriptor[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_K=64)
    return c


print(f"tiles of {BLOCK_M} x {BLOCK_N}")
if __name__ == "__main__":
    BLOCK_N = 64
"""

CORRECT = {
    "tutorial 02": (TUTORIAL_02, "softmax"),
    "pytorch tests": (PYTORCH_TESTS, "add"),
    "library style": (LIBRARY_STYLE, "add"),
    "tutorial 09": (TUTORIAL_09, "matmul"),
}


@pytest.mark.parametrize("name", CORRECT)
def test_correct_code_in_other_styles_reads_as_clean(tmp_path, name):
    text, _ = CORRECT[name]
    learner_source = learner(tmp_path, text)
    findings = learner_source.escapes()
    assert findings == [], "\n".join(map(str, findings))
    assert left_out(learner_source) == ""
    assert set(jit_functions(learner_source)) == set(learner_source.jit_function_names())


def test_pytorch_style_keeps_the_decorator_options(tmp_path):
    text, _ = learner(tmp_path, PYTORCH_TESTS).kernel_module()
    assert "@triton.jit(do_not_specialize=['n_elements'])" in text
    assert "triton.autotune" not in text and "triton.Config" not in text


def test_tutorial_09_keeps_the_constants_its_kernel_reads(tmp_path):
    text, _ = learner(tmp_path, TUTORIAL_09).kernel_module()
    assert "BLOCK_M = tl.constexpr(128)" in text
    assert "BLOCK_N = tl.constexpr(BLOCK_M * 2 // 2)" in text
    for absent in ("os.environ", "import os", "DEBUG"):
        assert absent not in text


# A constant and an alias chosen at import, by the environment: the interpreter's and a GPU's
# branches differ, and one `if` the judge cannot decide (a call of the file's own code).
CHOSEN_AT_IMPORT = """
import os
import triton
import triton.language as tl

if os.environ.get("TRITON_INTERPRET", "0") == "1":
    BLOCK = tl.constexpr(16)
    exp = tl.exp
else:
    BLOCK = tl.constexpr(128)
    exp = tl.math.exp

if len(open(__file__).read()) > 10:
    SCALE = tl.constexpr(2.0)


@triton.jit
def kernel(x_ptr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, exp(tl.load(x_ptr + offs)))


@triton.jit
def scaled(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) * SCALE)
"""


def test_a_module_level_if_is_decided_once_as_on_a_gpu(tmp_path, monkeypatch):
    # the interpreter runs the kernels a GPU compiles, whatever the module would choose here
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    learner_source = learner(tmp_path, CHOSEN_AT_IMPORT)
    here, findings = learner_source.kernel_module()
    assert "BLOCK = tl.constexpr(128)" in here and "exp = tl.math.exp" in here
    assert "tl.constexpr(16)" not in here and "exp = tl.exp" not in here
    # what the judge's reader cannot decide stays out, and so does the kernel that reads it
    assert "SCALE" not in here and "def scaled" not in here and "def kernel" in here
    assert any("SCALE" in str(f) for f in findings)


# ---------------------------------------------------------------------------------------------
# raises_not_started()
# ---------------------------------------------------------------------------------------------


def test_not_started_counts_only_at_the_top_of_the_entry(tmp_path):
    text = "from drills import NotStarted\n\n\ndef add(x, y, out=None):\n"
    started = learner(tmp_path, text + "    if x is None:\n        raise NotStarted('t1_add')\n")
    assert not started.raises_not_started("add")
    assert learner(tmp_path, text + "    raise NotStarted\n").raises_not_started("add")


# ---------------------------------------------------------------------------------------------
# kernel_module(): nothing in it may run Python the learner chose
# ---------------------------------------------------------------------------------------------

HOSTILE_KERNELS = [
    ("triton.runtime.jit.os.system('true')", "uses triton.runtime.jit.os.system, which is not"),
    ("tl.core.builtins.exec('x = 1')", "reaches builtins through triton.language.core"),
    ("tl.extra.modules['os'].system('x')", "reaches triton.language.extra.modules, which"),
    ("tl.str_to_ty('tensordesc<fp16[16]>,print(1)', None)", "uses triton.language.str_to_ty"),
    ("getattr(tl, 'core')", "uses getattr"),
    ("m = tl.core", "passes the module triton.language.core around as a value"),
    ("x_ptr.__class__", "reads __class__"),
    ("__builtins__", "reads __builtins__"),
    ("PENDING.append(x_ptr)", "reads PENDING, a module-level value that is not a constant"),
    ("helper(x_ptr)", "calls helper, which is not @triton.jit"),
    ("import os", "imports a module"),
    ("tl.load = tl.store", "assigns to triton.language.load"),
]


@pytest.mark.parametrize(("line", "why"), HOSTILE_KERNELS, ids=[h[0] for h in HOSTILE_KERNELS])
def test_kernels_that_reach_outside_triton_language_are_left_out(tmp_path, line, why):
    first_line = next(s for s in BASE.split("\n") if s.startswith("    offs = "))
    text = BASE.replace(first_line, f"    {line}\n{first_line}", 1)
    text += "\n\nPENDING = {}\n\n\ndef helper(x):\n    return x\n"
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert "def add_kernel" not in kernel_text
    assert len(findings) == 1 and findings[0].line == BASE.split("\n").index(first_line) + 1
    assert findings[0].what.startswith(
        f"left add_kernel out of the kernels the judge runs: it {why}"
    )


LIBRARY_HEADER = (
    "from torch._inductor.runtime import triton_helpers\n"
    "from torch._inductor.runtime.triton_helpers import math as tl_math\n"
)
LIBRARY_CALLS = [
    ("triton_helpers.max2(tl.load(x_ptr + offs), 0)", None),
    ("tl_math.exp(tl.load(x_ptr + offs))", None),
    ("triton_helpers.set_driver_to_cpu()", "is not one of torch._inductor.runtime.triton_helpers"),
    ("triton_helpers.warnings.warn('x')", "uses warnings.warn, which is not part of"),
    ("triton_helpers.triton_compat.os", "is not one of torch._inductor.runtime.triton_helpers"),
]


@pytest.mark.parametrize(("line", "why"), LIBRARY_CALLS, ids=[c[0] for c in LIBRARY_CALLS])
def test_kernels_may_call_the_jit_helpers_of_inductors_library_and_nothing_else_of_it(
    tmp_path, line, why
):
    """Inductor's generated kernels call triton_helpers.max2 and tl_math.exp: @triton.jit
    functions, and triton.language re-exported, from a module installed with torch."""
    first_line = next(s for s in BASE.split("\n") if s.startswith("    offs = "))
    text = LIBRARY_HEADER + BASE.replace(first_line, f"{first_line}\n    {line}", 1)
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    if why is None:
        assert findings == [] and "def add_kernel" in kernel_text
        assert LIBRARY_HEADER.split("\n")[0] in kernel_text
    else:
        assert "def add_kernel" not in kernel_text
        assert why in str(findings[0]), findings


MODULE_NAMES = [
    ("math = tl.math", "math.exp(tl.load(x_ptr + offs))", None),
    ("libdevice = tl.extra.libdevice", "libdevice.exp(tl.load(x_ptr + offs))", None),
    ("core = tl.core", "core.builtins.exec('x = 1')", "reads core, a module-level value that"),
    ("rt = triton.runtime", "rt.driver", "reads rt, a module-level value that is not a constant"),
]


@pytest.mark.parametrize(("named", "line", "why"), MODULE_NAMES, ids=[m[0] for m in MODULE_NAMES])
def test_a_module_level_name_for_a_module_reaches_what_its_path_reaches(tmp_path, named, line, why):
    """Inductor's triton_helpers says `math = tl.math` and its kernels call math.exp: a name
    for one of triton.language's modules of functions reads as an import of it; a name for any
    other module is a module-level value, which no kernel reads."""
    first_line = next(s for s in BASE.split("\n") if s.startswith("    offs = "))
    text = BASE.replace(first_line, f"{first_line}\n    {line}", 1) + f"\n{named}\n"
    read_as = learner(tmp_path, text)
    kernel_text, findings = read_as.kernel_module()
    if why is None:
        # imported on that line: tl.extra.libdevice is an attribute only once imported
        name = named.split(" = ")[0]
        assert findings == [] and "def add_kernel" in kernel_text
        assert f" as {name}\n" in kernel_text
        assert read_as.escapes() == []  # nor is the name a module passed around in host code
    else:
        assert "def add_kernel" not in kernel_text
        assert why in str(findings[0]), findings


@pytest.mark.parametrize(
    ("named", "dotted"), [("lib = torch", "torch"), ("core = tl.core", "triton.language.core")]
)
def test_a_module_level_name_for_another_module_is_a_module_passed_around(tmp_path, named, dotted):
    findings = learner(tmp_path, BASE + f"\n{named}\n").escapes()
    assert [f.what for f in findings] == [f"passes the module {dotted} around as a value"]


@pytest.mark.parametrize("name", ["__builtins__", "tl", "add_kernel"])
def test_a_name_with_a_meaning_of_its_own_stays_no_module_alias(tmp_path, name):
    """`__builtins__ = tl.math` would make every builtin a kernel names a lookup in that
    module's namespace; tl and a kernel keep what the file made them."""
    kernel_text, _ = learner(tmp_path, BASE + f"\n{name} = tl.math\n").kernel_module()
    assert f"triton.language.math as {name}" not in kernel_text
    assert f"{name} = tl.math" not in kernel_text


def test_a_kernel_calling_one_left_out_is_left_out(tmp_path):
    bad = "@triton.jit\ndef bad():\n    tl.core.builtins\n\n\n@triton.jit"
    text = BASE.replace("@triton.jit", bad).replace("    offs = ", "    bad()\n    offs = ", 1)
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert "def " not in kernel_text
    assert "it calls bad, which was left out of the kernels the judge runs" in str(findings[-1])


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        # a name nothing defines, where only a constexpr decides whether triton compiles it
        ("    if BLOCK == 0:\n        x = packed_add(x)", True),
        ("    if BLOCK != 0 and not BLOCK:\n        helper(x)", True),
        # the same outside such a branch, and a builtin (which Python defines) inside one
        ("    x = packed_add(x)", False),
        ("    if n == 0:\n        x = packed_add(x)", False),
        ("    if BLOCK == 0:\n        open('/etc/passwd')", False),
        ("    if BLOCK == 0:\n        x = x.handle", False),
    ],
)
def test_a_branch_only_a_constexpr_decides_may_name_what_is_not_defined(tmp_path, line, kept):
    text = BASE.replace("    x = tl.load(x_ptr + offs, mask=offs < n)\n", "", 1).replace(
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n",
        f"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        f"    x = tl.load(x_ptr + offs, mask=offs < n)\n{line}\n",
        1,
    )
    text += "\n\ndef helper(x):\n    return x\n"
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert ("def add_kernel" in kernel_text) == kept, findings


@pytest.mark.parametrize(
    ("line", "why"),
    [
        # what triton's compiler never sees and its interpreter runs, in any branch
        (
            "    for i in tl.static_range(0):\n        pass\n    else:\n        x = x",
            "a loop an else",
        ),
        ("    if BLOCK == 0:\n        f = lambda a: a\n", "defines a lambda"),
        ("    if BLOCK == 0:\n        def f(a):\n            return a\n", "defines a function"),
        (
            "    if BLOCK == 0:\n        try:\n            x = x\n        finally:\n            pass",
            "catches exceptions",
        ),
        # names the interpreter puts into the kernel's module are defined where it runs
        ("    if BLOCK == 0:\n        np.add(x, x)", "reads np"),
        ("    if BLOCK == 0:\n        inspect.os.getcwd()", "reads inspect"),
        # the interpreter reads a kernel from the last line of its source that starts with `def `
        (
            '    """\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK):\n    """',
            "starts with `def `",
        ),
    ],
)
def test_what_only_the_interpreter_would_run_is_left_out(tmp_path, line, why):
    text = BASE.replace(
        "    x = tl.load(x_ptr + offs, mask=offs < n)\n",
        f"    x = tl.load(x_ptr + offs, mask=offs < n)\n{line}\n",
        1,
    )
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert "def add_kernel" not in kernel_text
    assert why in str(findings), findings


def test_a_kernel_of_a_class_is_no_module_level_name(tmp_path):
    # at run time `eval` in a kernel is Python's builtin: no module-level kernel has that name
    text = BASE.replace(
        "@triton.jit\ndef add_kernel",
        "class Ops:\n    @triton.jit\n    def eval(a):\n        pass\n\n\n@triton.jit\ndef add_kernel",
    ).replace("    offs = ", "    eval(x_ptr)\n    offs = ", 1)
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert "def add_kernel" not in kernel_text
    assert "a kernel of the class Ops" in str(findings), findings


@pytest.mark.parametrize(
    "layout",
    [
        # a kernel under a module-level `if` starts its line, outside any class before it
        (
            "class Ops:\n    @triton.jit\n    def k(a):\n        pass\n\n\nif True:\n"
            "    @triton.jit\n    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
            "        pass\n"
        ),
        # a class kernel replaced by a module-level one: the class is left empty, and out
        (
            "class Ops:\n    @triton.jit\n    def add_kernel(a):\n        pass\n\n\n"
            "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
        ),
        # a class body indented with a tab keeps it
        (
            "class Ops:\n\t@triton.jit\n\tdef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):"
            "\n\t\tpass\n"
        ),
        # an alias of a kernel defined again later names the earlier one: no alias is kept
        (
            "@triton.jit\ndef add_kernel(a):\n    pass\n\n\nearlier = add_kernel\n\n\n"
            "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    pass\n"
        ),
    ],
)
def test_kernels_kept_from_anywhere_make_a_module_that_loads(tmp_path, layout):
    text = "import triton\nimport triton.language as tl\n\n\n" + layout
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert findings == []
    namespace = load_kernels(kernel_text)
    kernels = {v for v in namespace.values() if hasattr(v, "fn")}
    kernels |= {v for c in namespace.values() if isinstance(c, type) for v in vars(c).values()}
    assert "add_kernel" in {getattr(k, "__name__", "") for k in kernels}, kernel_text


def test_kernels_named_another_way_are_the_kernels_triton_runs(tmp_path):
    text = BASE.replace(
        "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):",
        "def add_body(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):",
    ).replace(
        "\n\ndef add(",
        "\n\nadd_kernel = triton.jit(do_not_specialize=['n'])(add_body)\nalias = add_kernel\n"
        "\n\nclass Op:\n    @triton.jit\n    def scale(x_ptr):\n        tl.store(x_ptr, 2.0)\n\n"
        "    def host(self):\n        return os.getpid()\n\n\ndef add(",
    )
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert findings == []
    namespace = load_kernels(kernel_text)
    assert namespace["add_kernel"] is namespace["add_body"] is namespace["alias"]
    assert "@triton.jit(do_not_specialize=['n'])\ndef add_body" in kernel_text
    assert "scale" in vars(namespace["Op"]) and "host" not in vars(namespace["Op"])
    assert "os.getpid" not in kernel_text


@pytest.mark.parametrize(
    "signature",
    [
        "x, B: tl.constexpr = __import__('os').getpid()",
        "x, B: tl.constexpr = ANSWER",
        "x, B: tl.constexpr = tl.core",
        "x, B: 'tl.constexpr\"); import os; (\"' = 1",
        "x, B: tl.constexpr = 1, *, C: eval('int') = 2",
    ],
)
def test_kernels_with_unsafe_defaults_or_annotations_are_left_out(tmp_path, signature):
    text = f"""\
    import os
    import triton
    import triton.language as tl

    ANSWER = int(os.environ["ANSWER"])


    @triton.jit
    def k({signature}):
        pass
    """
    kernel_text, findings = learner(tmp_path, text).kernel_module()
    assert "def k" not in kernel_text and "ANSWER" not in kernel_text
    assert [f.what.split(":")[0] for f in findings] == ["left k out of the kernels the judge runs"]


def test_only_triton_math_imports_and_safe_constants_are_kept(tmp_path):
    text = """\
    import math
    import os
    import torch
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton.runtime.cache import os as cache_os

    SCALE = tl.constexpr(math.log2(math.e) * 2); import ctypes
    NEG = tl.constexpr(-float("inf"))
    LIMIT = 10 ** 3
    ENV = tl.constexpr(int(os.environ.get("X", "1")))
    CALL = tl.constexpr(print("hello"))
    SHAPES = [torch.float16]
    THROUGH = tl.core.builtins


    @triton.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs) * SCALE
        tl.store(x_ptr + offs, libdevice.exp(x) + NEG + LIMIT)
    """
    learner_source = learner(tmp_path, text)
    kernel_text, findings = learner_source.kernel_module()
    kept = [line for line in kernel_text.split("\n") if line]
    assert kept[:4] == [
        "import triton; import triton.language as tl; import math",
        "import triton",
        "import triton.language as tl",
        "from triton.language.extra import libdevice",
    ]
    assert "SCALE = tl.constexpr(math.log2(math.e) * 2)" in kept
    assert 'NEG = tl.constexpr(-float("inf"))' in kept and "LIMIT = 10 ** 3" in kept
    for absent in ("ctypes", "torch", "environ", "print", "builtins", "cache_os", "import os"):
        assert absent not in kernel_text
    assert [str(f) for f in findings] == [
        ("line 7: left this import out of the kernels the judge runs: it uses triton.runtime.cache")
    ]
    assert "k" in jit_functions(learner_source)


def compile_error_of_add_kernel(path: Path) -> str:
    """What triton says when it refuses to compile the file's add_kernel for sm_90."""
    learner = source.read(path, "mine/t1_add.py")
    signature = {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    fn = jit_functions(learner)["add_kernel"]
    ast_source = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs={"BLOCK": 16})
    try:
        triton.compile(ast_source, target=GPUTarget("cuda", 90, 32))
    except triton.compiler.CompilationError as refused:
        return str(refused)
    return "compiled"


def test_a_compile_error_is_placed_at_a_line_of_the_learners_file(tmp_path):
    """triton counts a compile error's line from the kernel's `def`; the learner reads files."""
    path = tmp_path / "t1_add.py"
    path.write_text(
        textwrap.dedent(
            """\
            import triton
            import triton.language as tl


            @triton.jit
            def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                if x > 0:
                    tl.store(x_ptr + offs, x, mask=offs < n)
            """
        )
    )
    learner = source.read(path, "mine/t1_add.py")
    done = in_a_compiling_process("compile_error_of_add_kernel", path)
    message = done.stdout
    assert "at 4:4:\ndef add_kernel(" in message, done.stderr[-3000:]  # counted from the def
    assert "at mine/t1_add.py, line 9, column 4:\ndef add_kernel(" in learner.in_file_lines(message)


# ---------------------------------------------------------------------------------------------
# kernel_module(): FlagGems' `tle`, a namespace of @triton.jit helpers made in the file
# ---------------------------------------------------------------------------------------------

TLE_KERNEL = """
import types

import triton
import triton.language as tl


@triton.jit
def program_id(axis):
    return tl.program_id(axis).to(tl.int64)


def host_helper(x):
    return x

{before}
tle = types.ModuleType("tle")
tle.program_id = program_id
{after}

@triton.jit
def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = {call} * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs, mask=offs < n)
{tail}
"""
TLE_CASES = [
    # (what is set before/after the namespace, the kernel's call, what follows; why, or None)
    ("", "", "tle.program_id(0)", "", None),
    ("from types import ModuleType as MT", "tle.pid = program_id", "tle.pid(0)", "", None),
    ("", "", "tle.program_id(0)", "tle.late = program_id", None),  # set after the kernel
    ("", "", "tle.num_programs(0)", "", "reads tle.num_programs, which the file never sets"),
    ("", "tle.host = host_helper", "tle.host(0)", "", "calls tle.host, which is host_helper"),
    ("", "tle = 4", "tle.program_id(0)", "", "reads tle.program_id: a kernel reads a constant"),
    ("", "del tle.program_id", "tle.program_id(0)", "", "reads tle, a module-level value"),
    ("", "tle.program_id += 1", "tle.program_id(0)", "", "reads tle, a module-level value"),
    ("", "", "tle.program_id.fn(0)", "", "reads tle.program_id.fn, an attribute of a kernel"),
    ("", "", "tl.program_id(0) + len(tle)", "", "passes the namespace tle around as a value"),
    (
        "",
        "",
        "tle.program_id(0)",
        "@triton.jit\ndef program_id(axis):\n    return tl.program_id(axis)\n",
        "calls tle.program_id, set to a program_id that the file defines again later",
    ),
]


@pytest.mark.parametrize(("before", "after", "call", "tail", "why"), TLE_CASES)
def test_a_namespace_of_jit_helpers_made_in_the_file(tmp_path, before, after, call, tail, why):
    """FlagGems' kernels call tle.program_id(0), tle a module of @triton.jit helpers; a single
    file makes it with types.ModuleType and sets its attributes. Triton compiles a kernel that
    reaches a global of type ModuleType; the judge keeps the namespace, with only the kernels
    its attributes are set to, and ends it where anything else binds, sets or deletes it."""
    text = TLE_KERNEL.format(before=before, after=after, call=call, tail=tail)
    if "MT" in before:
        text = text.replace("types.ModuleType", "MT")
    learner_source = learner(tmp_path, text)
    kernel_text, findings = learner_source.kernel_module()
    if why is None:
        assert findings == [] and "def add_kernel" in kernel_text
        # compiled as the judge compiles (drills.judge.gpu_compile), with the interpreter off
        script = (
            "import sys; from drills.judge.gpu_compile import LoadedKernels, stop_at_llvm_ir; "
            "stop_at_llvm_ir(); module = LoadedKernels(sys.stdin.read(), 't1', []); "
            "args = {'x_ptr': {'tensor': 'int64'}, 'n': 100, 'BLOCK': 16}; "
            "print(module.compile({'kernel': 'add_kernel', 'args': args}))"
        )
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=kernel_text,
            cwd=ROOT,
            env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.stdout.strip() == "None", done.stdout[-3000:] + done.stderr[-3000:]
        assert load_kernels(kernel_text)["tle"].program_id is not None  # runs as a module too
    else:
        assert "def add_kernel" not in kernel_text
        assert why in left_out(learner_source)


@pytest.mark.parametrize(
    "made",
    ["types.SimpleNamespace(program_id=program_id)", 'types.ModuleType("triton.language.x")'],
)
def test_namespaces_triton_refuses_or_could_swap_are_left_out(tmp_path, made):
    """A SimpleNamespace (or a namedtuple, a class) triton's code generator refuses; a module
    with a dotted name could be one it swaps for a backend's (its module_map)."""
    text = TLE_KERNEL.format(before="", after="", call="tle.program_id(0)", tail="")
    text = text.replace('types.ModuleType("tle")', made).replace("tle.program_id = program_id", "")
    learner_source = learner(tmp_path, text)
    assert "reads tle, a module-level value that is not a constant" in left_out(learner_source)


@pytest.mark.parametrize(
    "definition, fits",
    [
        ("def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr): pass", True),
        ("def grouped_tile(pid, m, n, g, extra=0): pass", True),
        ("def grouped_tile(*args): pass", True),
        ("def grouped_tile(pid, M, N, BM, BN, G): pass", False),
        ("def grouped_tile(pid, m, n): pass", False),
        ("grouped_tile = 4", False),
    ],
)
def test_the_probe_calls_grouped_tile_only_where_four_arguments_fit(tmp_path, definition, fits):
    found = learner(tmp_path, f"import triton.language as tl\n{definition}\n")
    assert found.takes_positional("grouped_tile", 4) is fits
