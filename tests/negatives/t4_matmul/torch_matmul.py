"""Calls torch.matmul and launches nothing."""

import torch

LOSES = ["launches"]
MAX_SCORE = 0
SAYS = "uses torch.matmul"


def matmul(a, b, out=None):
    result = torch.matmul(a, b)
    return result if out is None else out.copy_(result)
