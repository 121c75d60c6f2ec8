"""Computes x + y with torch.add and launches nothing: the judge's reading of the source
finds torch.add before anything runs."""

import torch

LOSES = ["launches its Triton kernel (no torch arithmetic)", "adds two vectors"]
MAX_SCORE = 0
SAYS = "uses torch.add"


def add(x, y, out=None):
    return torch.add(x, y, out=out)
