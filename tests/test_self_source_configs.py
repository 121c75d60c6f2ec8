"""The repo's own tests of drills/judge/source_configs.py: the judge reads a kernel's autotune
configs from the source, the way the file builds them, and gives up (None) rather than run
anything it does not evaluate itself."""

import ast

import pytest

from drills import catalog, controls
from drills.judge.source import LearnerSource
from drills.judge.source_configs import autotune_configs

ROOT = catalog.ROOT
# configs with a pre_hook (a host function the judge would have to run) are not read: the
# runner's list then only chooses which configs the judge runs
PRE_HOOKS = {"ops_matmul_split_k.py"}
T4_FILES = [
    ROOT / "solutions" / "t4_matmul.py",
    ROOT / "drills" / "stubs" / "t4_matmul.py",
    *sorted((ROOT / "tests" / "positives" / "t4_matmul").glob("*.py")),
]
HEADER = "import os\nimport itertools\nimport triton\nimport triton.language as tl\n"
KERNEL = "\n@triton.autotune(configs={configs}, key=['n'])\n@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n"


def configs_of(body: str, configs: str = "CONFIGS"):
    return autotune_configs(ast.parse(HEADER + body + KERNEL.format(configs=configs)), "k")


@pytest.mark.parametrize("interpreting", ["1", "0"])
@pytest.mark.parametrize("path", T4_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_t4_file_of_the_repo_has_its_configs_read(path, interpreting, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", interpreting)
    text = controls.source_text(path)  # a positive may be edits of the reference
    learner = LearnerSource(path.name, text, ast.parse(text))
    kernel = next(name for name in learner.jit_names if learner.autotuned(name))
    configs = autotune_configs(ast.parse(text), kernel)
    if path.name in PRE_HOOKS:
        assert configs is None
        return
    assert configs, path
    # one small config on the interpreter (or a few that the file's own pruning cuts to one),
    # the GPU list otherwise (one config, in a split-K file whose timing runs would add into
    # its workspace): the file's own choice
    if interpreting == "1":
        assert len(configs) == 1 or "prune_configs_by" in text
    else:
        monkeypatch.setenv("TRITON_INTERPRET", "1")
        on_interpreter = autotune_configs(ast.parse(text), kernel)
        assert [str(c) for c in configs] != [str(c) for c in on_interpreter]


def test_comprehensions_products_functions_and_conditions_are_evaluated():
    body = (
        "def gpu(stages=3):\n"
        "    return [triton.Config({'B': b}, num_warps=w, num_stages=stages)\n"
        "            for b, w in itertools.product([32, 64], [4, 8]) if b * w < 512]\n"
        "if os.environ.get('NO_SUCH_VARIABLE_HERE'):\n"
        "    CONFIGS = []\n"
        "else:\n"
        "    CONFIGS = gpu(4)\n"
    )
    configs = configs_of(body)
    assert [(c.kwargs["B"], c.num_warps, c.num_stages) for c in configs] == [
        (32, 4, 4),
        (32, 8, 4),
        (64, 4, 4),
    ]


def test_loops_that_append_configs_are_followed():
    body = (
        "CONFIGS = []\n"
        "for b in (16, 32, 64):\n"
        "    if b > 16:\n"
        "        CONFIGS.append(triton.Config({'B': b}))\n"
        "def more():\n"
        "    extra = []\n"
        "    for w in (4, 8):\n"
        "        extra.append(triton.Config({'B': 128}, num_warps=w))\n"
        "    return extra\n"
        "CONFIGS.extend(more())\n"
    )
    configs = configs_of(body)
    assert [(c.kwargs["B"], c.num_warps) for c in configs] == [(32, 4), (64, 4), (128, 4), (128, 8)]


@pytest.mark.parametrize(
    "body",
    [
        # a loop the reader cannot follow changes the list it started from: not read as []
        "CONFIGS = []\nfor b in make_them():\n    CONFIGS.append(triton.Config({'B': b}))",
        "CONFIGS = []\nfor b in (16, 32):\n    if b > 16:\n        break\n"
        "    CONFIGS.append(triton.Config({'B': b}))",
        "CONFIGS = [triton.Config({'B': 32})]\nCONFIGS.insert(0, make_one())",
        "CONFIGS = [triton.Config({'B': 32})]\nCONFIGS[0] = make_one()",
        "CONFIGS = [triton.Config({'B': 32})]\ndel CONFIGS[0]",
    ],
)
def test_a_list_changed_in_ways_the_reader_cannot_follow_is_not_read(body):
    assert configs_of(body) is None


@pytest.mark.parametrize(
    "body",
    [
        "CONFIGS = [triton.Config({'B': 32}, pre_hook=print)]",  # a hook is host code
        "CONFIGS = make_them()",  # a function the file does not define
        "CONFIGS = [triton.Config({'B': b}) for b in range(10**9)]",  # too long to make
        "CONFIGS = [triton.Config({'B': 32})] * 10**6",
        "CONFIGS = __import__('os').system('true')",
        "CONFIGS = [triton.Config({'B': open('/etc/passwd').read()})]",
        "import json\nCONFIGS = json.loads('[]')",  # a module it does not evaluate
        "CONFIGS = [c for c in triton.runtime.driver.active.configs]",
    ],
)
def test_what_it_does_not_evaluate_leaves_the_list_unread(body):
    assert configs_of(body) is None


def test_a_kernel_without_autotune_has_no_configs_to_read():
    tree = ast.parse(HEADER + "@triton.jit\ndef k(x):\n    pass\n")
    assert autotune_configs(tree, "k") is None


JIT_ONLY = "\n@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n\n@triton.jit\ndef other(x):\n    pass\n"


@pytest.mark.parametrize(
    "call",
    [
        "K = triton.autotune(configs=[triton.Config({'B': 32})], key=['n'])(k)",
        "K = triton.autotune([triton.Config({'B': 32})], ['n'])(triton.heuristics({})(k))",
        "class Kernels:\n    k = triton.autotune(configs=[triton.Config({'B': 32})], key=['n'])(k)",
    ],
)
def test_an_autotune_called_on_the_kernel_after_it_is_defined_is_read(call):
    tree = ast.parse(HEADER + JIT_ONLY + call + "\n")
    source = LearnerSource("t4_matmul.py", ast.unparse(tree), tree)
    assert source.autotuned("k") and not source.autotuned("other")
    assert [c.kwargs for c in autotune_configs(tree, "k")] == [{"B": 32}]
    assert autotune_configs(tree, "other") is None


def test_the_environment_read_is_the_judges(monkeypatch):
    body = "CONFIGS = [triton.Config({'B': int(os.getenv('DRILLS_TEST_BLOCK', '16'))})]"
    monkeypatch.setenv("DRILLS_TEST_BLOCK", "64")
    assert configs_of(body)[0].kwargs == {"B": 64}
    monkeypatch.delenv("DRILLS_TEST_BLOCK")
    assert configs_of(body)[0].kwargs == {"B": 16}


def test_the_list_a_gpu_machine_makes_is_read_on_the_interpreter(monkeypatch):
    # the judge on the CPU runs and compiles the GPU list too: read as without TRITON_INTERPRET
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = ROOT / "solutions" / "t4_matmul.py"
    source = LearnerSource(path.name, path.read_text(), ast.parse(path.read_text()))
    here, on_a_gpu = (source.autotune_configs("matmul_kernel", gpu) for gpu in (False, True))
    monkeypatch.delenv("TRITON_INTERPRET")
    gpu_list = autotune_configs(ast.parse(path.read_text()), "matmul_kernel")
    assert len(here) == 1 and len(on_a_gpu) > 1
    assert [str(c) for c in on_a_gpu] == [str(c) for c in gpu_list]
