"""Calls torch.softmax and launches nothing."""

import torch

LOSES = ["launches its Triton kernel (no torch softmax) and allocates its result"]
MAX_SCORE = 0
SAYS = "uses torch.softmax"


def softmax(x, out=None):
    result = torch.softmax(x.float(), dim=-1).to(x.dtype)
    return result if out is None else out.copy_(result)
