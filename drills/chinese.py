"""The grader's words for Chinese readers (`LANG=zh`): what kind of mistake a failing check saw,
and what to do about it, in the terms of content/zh/. The English message stays beside them:
its numbers, indices and code are the evidence, and the Chinese says what they mean."""

import os
from dataclasses import dataclass

from drills import state
from drills.failures import Kind, Status


def _named(value: str) -> str:
    return "zh" if value.lower().startswith("zh") else "en"


def language() -> str:
    """ "zh" when Chinese is asked for, else "en": by DRILLS_LANG, which `make grade LANG=zh`
    (any target) sets so that it holds where LC_ALL would outrank LANG; else by the choice an
    earlier command kept (keep_choice); else by the locale (LC_ALL, then LC_MESSAGES, then
    LANG, as POSIX reads them)."""
    if os.environ.get("DRILLS_LANG"):
        return _named(os.environ["DRILLS_LANG"])
    kept = state.kept_language()
    if kept:
        return kept
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return _named(value)
    return "en"


KEPT = {
    "en": "From now on every command here speaks English (LANG=zh on any make command for "
    "Chinese).",
    "zh": "之后这里的每条命令都用中文（任一 make 命令加 LANG=en 改回英文），"
    "它们建议的命令也不用再加 LANG=zh。",
}


def keep_choice() -> None:
    """Keep the language asked for on make's command line (DRILLS_LANG) for every later
    command, so that the commands the tools suggest need no LANG=; say so when it changes.
    Called by the learner's commands (the grader, the tools), never by a judge."""
    asked = os.environ.get("DRILLS_LANG")
    if asked and state.keep_language(_named(asked)):
        print(KEPT[_named(asked)])


@dataclass(frozen=True)
class Words:
    """What the Chinese edition says of one kind of failure: its name (the one the Chinese
    lessons use) and what to do about it."""

    name: str
    advice: str


# By the kind the judge gave the failure (drills.failures.Kind): a kind missing here is said
# by GENERAL, and a test keeps every kind here.
WORDS = {
    Kind.WROTE_OUTSIDE: Words(
        "写到了输出外面",
        "Kernel 往输出范围之外写了数据（英文说明给出是在开头之前还是末尾之后、离得多远）。"
        "给 `tl.store` 加上 mask，只写属于输出的位置，例如 `mask = offsets < n_elements`；"
        "二维的 Tile 要同时限制行和列。",
    ),
    Kind.READ_BEFORE_START: Words(
        "读到了输入开头之前",
        "所有越界的读取都在张量第一个元素之前。这不是漏了 mask（`offsets < n` 挡不住它们），"
        "而是指针运算错了，例如 offsets 多减了一项，或者块的起点算小了。"
        "按调试页面（content/debugging.md，英文）第 2 步打印 Program 0 的 offsets。",
    ),
    Kind.READ_OUTSIDE: Words(
        "读到了输入外面",
        "有 `tl.load` 读到了输入张量之外。给每个 `tl.load` 加上 mask（按它自己读的行、列或 K "
        "范围写，不一定和写回相同），被 mask 掉的位置用 `other=` 给出不影响结果的值："
        "矩阵乘法的乘积累加用 0；softmax 的一行用 `-inf`（填 0 的话，0 会参与求最大值，"
        "exp(0 - max) 也会加进分母）。",
    ),
    Kind.RACE: Words(
        "Program 之间有竞争",
        "结果不只由输入决定：评测把这次调用重跑了一遍（`out` 不变，或先清零），结果变了。"
        "Kernel 不能在写 `out` 之前读它；一个 Program 去读另一个 Program 写的块，或两个 Program "
        "写同一个元素，就形成竞争，因为 GPU 上的 Program 同时运行，没有先后（CPU 解释器每次启动"
        "都按随机顺序运行它们）。每个元素只能由一个 Program 根据输入算出并写入。",
    ),
    Kind.NEVER_WRITTEN: Words(
        "从未写入",
        "输出里有元素没有任何 Program 写过。检查 Grid 是否覆盖了所有块或 Tile（向上取整，"
        "`triton.cdiv`），每个 Program 是否写满了自己的那一块（offsets 从块的起点算起），"
        "mask 是否挡掉了该写的位置；矩阵乘法里，pid 到 Tile 的映射要一一对应。",
    ),
    Kind.CHANGED_INPUT: Words(
        "改动了输入",
        "Kernel 或 host 代码改写了输入张量（或它两侧的填充区）。输入只读：结果只写进输出张量。",
    ),
    Kind.HOST_COMPUTED: Words(
        "用 torch 算的",
        "结果（或它的一部分）不是你的 Kernel 算的：host 代码用 torch 做了运算，或者复制了张量"
        "（如 `.contiguous()`）来绕开 stride。host 代码只检查参数、分配输出、启动 Kernel；"
        "计算和数据搬运都放进 `@triton.jit` 函数。",
    ),
    Kind.NO_LAUNCH: Words(
        "没有启动 Kernel",
        "这次调用没有按要求启动 Triton Kernel。用 `kernel[grid](...)` 启动它，并把输出张量传给它；"
        "报的是 config 时，按英文说明给出的 config 启动，不要在 host 代码里另传块大小。",
    ),
    Kind.NOT_ZEROED: Words(
        "用了未初始化的内存",
        "输出里还有 NaN，那是评分器填进新内存的值。Kernel 用 `tl.atomic_add` 往输出上累加时，"
        "每次调用都要先把输出清零：用 `torch.zeros` 分配，或在每个 config 的 `pre_hook` 里清零"
        "（它在每次启动前都运行）。autotune 的 `reset_to_zero` 不够：它只在某个 shape 第一次调用时、"
        "计时运行的前后清零。已经清零的话，就是有元素没写到。",
    ),
    Kind.SECOND_CALL: Words(
        "第二次调用出错",
        "同样的输入，第一次调用对了，第二次错了：两次调用之间留下了状态，例如复用的缓冲区没有清零，"
        "或者缓存了上一次的结果。每次调用都要从干净的状态开始。",
    ),
    Kind.STRIDES: Words(
        "没有按 stride 寻址",
        "Kernel 算地址用的 stride 和张量实际的不一致（当成了连续存储、两个 stride 弄反，"
        "或假设列 stride 是 1）。每一维都乘上它自己的 stride："
        "`row * stride_row + col * stride_col`，不要假设下一行紧接着上一行。",
    ),
    Kind.WRONG_VALUES: Words(
        "数值错误",
        "有元素的值不对。英文说明列出了出错的下标、得到的值、应得的值和写它们的 Program："
        "先看出错的位置有什么规律（某一块、某一行、边缘），再检查负责那部分的代码"
        "（地址、mask、累加）。",
    ),
    Kind.WRONG_RETURN: Words(
        "返回的张量不对",
        "返回值不对：不是张量、返回了输入，或 shape、dtype、device 不符合要求。没传 `out` 时"
        "按输入的 dtype 和 device 分配新的输出（例如 `torch.empty_like(x)`），传了就写进 `out`；"
        "写好后返回它。",
    ),
    Kind.GROUPED_TILE: Words(
        "分组顺序不对",
        "`grouped_tile` 要把 pid 一一对应到 Tile：每个 Tile 恰好一个 pid，而且组内按列走。"
        "最后一组可能不满，组的高度要截断成 `min(num_pid_m - first_pid_m, GROUP_SIZE_M)`。"
        "英文说明给出了第一个出错的 pid 或 Tile。",
    ),
    Kind.TILE_ORDER: Words(
        "Kernel 没有按分组顺序走 Tile",
        "结果是对的，但 Kernel 自己没有按分组顺序给 Program 分配 Tile（例如直接用了 "
        "`pid // num_pid_n` 和 `pid % num_pid_n`）。按 "
        "`grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)` 的算法算出 `pid_m` 和 "
        "`pid_n`：组内按列走，最后一组的高度截断成 `min(num_pid_m - first_pid_m, "
        "GROUP_SIZE_M)`。",
    ),
    Kind.GPU_LIMIT: Words(
        "超出了 GPU 的硬性限制",
        "这次启动任何 NVIDIA GPU 都运行不了（解释器没有这些限制，所以评测在 CPU 上也按 GPU 的规则判）。"
        "Grid 的第 1、2 维最多 65535 个 Program，第 0 维最多 2^31 - 1：把最长的维度放在第 0 维，"
        "或让每个 Program 处理多个块。Tensor descriptor 的基地址和除最后一维外的 stride 必须是 "
        "16 字节的倍数：不满足时改用 `tl.load`。",
    ),
    Kind.NOT_AUTOTUNED: Words(
        "没有 autotune",
        "给 Kernel 加上 `@triton.autotune(configs=..., key=[...])`，并把 Grid 写成以 `META` "
        "为参数的函数：`lambda META: (...)`，块大小从 `META` 里取。",
    ),
    Kind.SCORES_IN_MEMORY: Words(
        "把注意力分数整块存进了显存",
        "调用分配了一个和 seq_q × seq_k 分数矩阵一样大的临时张量。FlashAttention 的要点是"
        "分数只在片上存在：每个 Program 一块一块地算 `tl.dot(q, k^T)`，当场做在线 softmax，"
        "再乘上 v 累加进输出，从不把整张分数表写回内存。",
    ),
    Kind.NOT_SPLIT: Words(
        "没有把一行分给多个 Program",
        "调用给了 `parts`，就要让每一行由 `parts` 个 Program 分担：Grid 写成 "
        "`(n_rows, parts)`，每个 Program 把自己那一段归约成一对（最大值，和），"
        "再由第二个 Kernel 合并同一行的各对。",
    ),
    Kind.NOT_COMPILED: Words(
        "不能为 GPU 编译",
        "CPU 解释器把 Kernel 当 Python 执行，能跑；GPU 编译器却拒绝了它。英文说明给出了"
        "文件中的行号和编译器的原话。常见原因：辅助函数没加 `@triton.jit`；`if` 的条件是块"
        "而不是标量；用 `acc += tl.dot(...)` 累加的 fp16 累加器（循环里类型从 fp16 变成 "
        "fp32），或小于 16 的 `BLOCK_K`（矩阵乘法）。",
    ),
    Kind.GPU_REFUSES: Words(
        "GPU 不接受这次启动",
        "启动参数超出了 GPU 的限制：`num_warps` 必须是 1 到 32 之间的 2 的幂；一个 Program "
        "用的 Shared Memory 不能超过 GPU 的上限：减小块大小或 `num_stages`，autotune 列表里至少要有"
        "一个放得下的 config。",
    ),
    Kind.JUDGE_CANNOT_RUN: Words(
        "评分器无法执行这次启动",
        "评分器自己运行你的 Kernel，host 代码要它启动的东西它执行不了（例如不是 `@triton.jit` "
        "的函数、不能传给 Kernel 的参数、不是 torch 分配的张量）。英文说明指出了是哪一个。",
    ),
    Kind.CUDA_FAULT: Words(
        "GPU 上的非法内存访问",
        "GPU 报告 Kernel 的某次加载或写回落在了所有张量之外。检查 mask 和 offsets（下标可能"
        "超过 2^31 时，offsets 从 `pid.to(tl.int64) * BLOCK_SIZE` 算起）；用 "
        "`TRITON_INTERPRET=1 make grade` 在 CPU 上重跑，解释器能指出是哪一次读写。",
    ),
    Kind.RAISED: Words(
        "代码抛出了异常",
        "你的代码在这个用例里抛出了异常。英文说明给出了异常和出错的行；用同样的 shape 和 dtype "
        "在本地调用一次，就能复现。",
    ),
    Kind.CRASHED: Words(
        "进程崩溃",
        "运行你代码的进程崩溃了。最常见的原因是没有 mask 的加载或写回越过了张量的末尾。",
    ),
    Kind.TIMEOUT: Words(
        "超时",
        "这个练习没有在时限内跑完。检查循环能否结束、Grid 是否过大；在 CPU 解释器上，"
        "Program 越多越慢。",
    ),
    Kind.NOT_STARTED: Words(
        "还没开始", "这个练习的 stub 还没填写。读课文，按 TODO 补全 `mine/` 里的文件。"
    ),
    Kind.IMPORT_ERROR: Words(
        "文件无法导入", "Python 没能导入你的文件。英文说明给出了错误和行号，先修好它。"
    ),
    Kind.TAMPERED: Words(
        "改动了评分器的文件",
        "你的代码改写了评分器自己的文件。文件已经恢复，这个练习不得分：练习代码只读写自己的"
        "张量，不碰其他文件。",
    ),
    Kind.GPU_MEMORY: Words(
        "GPU 显存不够评分器用",
        "评分器给这个用例分配自己的缓冲区时，GPU 显存已经用完：显存被别的进程占着（notebook、"
        "另一次评分，`nvidia-smi` 能列出它们），或是你的主机代码分配的。释放之后再评分；在那之前"
        "这一项不能通过。",
    ),
    Kind.GRADER_FAILED: Words(
        "评分器自身出错",
        "这不是你的代码的错：评分器自己在这个用例上失败了。英文说明给出了原因；"
        "用 `make doctor` 检查环境，问题还在就报告它。",
    ),
}

# A drill that did not run its checks: by its status.
BY_STATUS = {
    Status.NOT_STARTED: WORDS[Kind.NOT_STARTED],
    Status.ERROR: WORDS[Kind.IMPORT_ERROR],
    Status.CRASHED: Words("进程崩溃", "运行你代码的进程崩溃了。英文说明给出了它最后的输出。"),
    Status.TIMEOUT: Words("超时", "这个练习没有在时限内跑完。检查循环能否结束、Grid 是否过大。"),
}

GENERAL = Words("没有通过这个检查", "原因见英文说明。")


def words_for(kind: Kind) -> Words:
    """The Chinese words for a failure of this kind."""
    return WORDS.get(kind, GENERAL)
