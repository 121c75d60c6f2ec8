"""The output's tiles as the judge saw them: which are right, wrong or never written, and which
programs stored each."""

import dataclasses
from dataclasses import dataclass

import torch

from drills.judge.testing.record import Launch

TILE_MAP_ROWS, TILE_MAP_WIDTH = 20, 80  # rows of tiles shown, and the terminal's columns


@dataclass
class TileMap:
    """The output's tiles, as the judge saw them: each tile's mark ('.' right, 'x' wrong, '-'
    never written) and, where the interpreter noted them, the programs whose stores it holds
    (linear ids: pid_0 + pid_1 * grid_0 + pid_2 * grid_0 * grid_1)."""

    block: tuple[int, int]
    rows: int  # rows and columns of tiles in all; marks and programs hold the first ones
    columns: int
    marks: list[str]
    programs: list[list[list[int]]] | None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def text(self) -> str:
        bm, bn = self.block
        if self.programs is None:
            head = f"the output in tiles of {bm} x {bn} ('.' right, 'x' wrong, '-' never written):"
        else:
            head = f"the output in tiles of {bm} x {bn}, by the program whose stores each holds:"
        lines = [
            f"  row {i:>3}   {' '.join(self.cell(i, j) for j in range(len(marks)))}"
            for i, marks in enumerate(self.marks)
        ]
        if lines and len(self.marks[0]) < self.columns:
            lines[0] += f" ... {self.columns} in all"
        if len(self.marks) < self.rows:
            lines.append(f"  ... {self.rows} rows of tiles in all")
        if self.programs is None:
            lines.append("  (which program stored each tile is seen on the CPU interpreter only)")
        else:
            lines.append("  ('.' right, 'x' wrong, '-' never written; '*' several programs)")
        return "\n".join([head, *lines])

    def cell(self, i: int, j: int) -> str:
        if self.programs is None:
            return self.marks[i][j]
        programs = self.programs[i][j]
        who = "" if not programs else "*" if len(programs) > 1 else str(programs[0])
        return f"{who}{self.marks[i][j]}".rjust(self.cell_width())

    def cell_width(self) -> int:
        ids = [p for row in self.programs or [] for tile in row for p in tile]
        return len(str(max(ids, default=0))) + 1


def tile_map(
    unwritten: torch.Tensor,
    wrong: torch.Tensor,
    block: tuple[int, int],
    writers: torch.Tensor | None = None,
) -> TileMap:
    """The output's tiles of block[0] x block[1] elements, as many as fit 80 columns: what a
    learner otherwise draws by hand to see which programs went wrong. `writers`, shaped like
    the output, holds the program whose store each element holds (-1 where none)."""
    bm, bn = block
    rows, cols = -(-unwritten.shape[0] // bm), -(-unwritten.shape[1] // bn)
    widest = len(str(max(int(writers.max()), 0))) + 2 if writers is not None else 2
    shown_cols = min(
        cols, (TILE_MAP_WIDTH - len("  row 123   ") - len(" ... 999 in all")) // widest
    )
    marks, programs = [], []
    for i in range(min(rows, TILE_MAP_ROWS)):
        tiles = [
            (slice(i * bm, (i + 1) * bm), slice(j * bn, (j + 1) * bn)) for j in range(shown_cols)
        ]
        marks.append(
            "".join("-" if unwritten[t].any() else "x" if wrong[t].any() else "." for t in tiles)
        )
        if writers is not None:
            programs.append([stored_by(writers[t]) for t in tiles])
    return TileMap(block, rows, cols, marks, programs if writers is not None else None)


def stored_by(writers: torch.Tensor) -> list[int]:
    """The programs whose stores these elements hold (at most 8 of them)."""
    return writers[writers >= 0].unique().tolist()[:8]


# M and N of a matmul case with more tiles of c than a GPU has SMs (132 on an H100 or H200), and
# not a multiple of them, for every tile size a config picks (256 x 128 tiles: 12 x 32 = 384): a
# persistent kernel's programs then take several tiles each, and some one more than others
MANY_TILES = (3001, 4001)


def matmul_tile(launch: "Launch | None") -> tuple[int, int] | None:
    """A matmul launch's tile of c, from its block constexprs (the drills' names, or the
    BLOCK_M / BLOCK_N of split-K kernels in the style of triton.ops.matmul)."""
    args = launch.args if launch else {}
    bm = next((args[n] for n in ("BLOCK_SIZE_M", "BLOCK_M") if isinstance(args.get(n), int)), 0)
    bn = next((args[n] for n in ("BLOCK_SIZE_N", "BLOCK_N") if isinstance(args.get(n), int)), 0)
    return (bm, bn) if bm > 0 and bn > 0 else None
