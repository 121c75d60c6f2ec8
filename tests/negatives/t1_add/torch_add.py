"""Computes x + y with torch and launches nothing."""

import torch

LOSES = ["launches its Triton kernel (no torch arithmetic)", "adds two vectors"]
MAX_SCORE = 0
SAYS = "no Triton kernel was launched"


def add(x, y, out=None):
    return torch.add(x, y, out=out)
