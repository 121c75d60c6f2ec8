"""The T6 reference (and the stub, which shares its check_inputs) names what its kernel cannot
address before it launches: more heads than the grid's axis 1 holds, and a head whose rows span
past int32 offsets. Meta tensors: the shapes are real, the memory is never allocated."""

import pytest
import torch

from drills import catalog
from drills.loading import load


@pytest.fixture(scope="module", params=["solutions", "drills/stubs"])
def module(request):
    return load(catalog.find("t6").source(str(catalog.ROOT / request.param)))


def qkv(batch, heads, seq, head_dim=16, row_stride=None):
    shape = (batch, heads, seq, head_dim)
    row_stride = row_stride or head_dim
    strides = (heads * seq * row_stride, seq * row_stride, row_stride, 1)
    return torch.empty(0, dtype=torch.float16, device="meta").as_strided(shape, strides)


def test_the_most_heads_the_grid_holds_pass_and_one_more_is_named(module):
    module.check_inputs(*[qkv(65535, 1, 4)] * 3, False, None, None)
    with pytest.raises(ValueError, match="batch \\* heads must be at most 65535"):
        module.check_inputs(*[qkv(4096, 16, 4)] * 3, False, None, None)


def test_rows_past_int32_offsets_are_named(module):
    module.check_inputs(*[qkv(1, 1, 2**14, row_stride=2**17 - 1)] * 3, False, None, None)
    wide = qkv(1, 1, 2**14, row_stride=2**17)
    with pytest.raises(ValueError, match="k's rows of one head span 2147483648 elements"):
        module.check_inputs(qkv(1, 1, 4), wide, wide, False, None, None)
