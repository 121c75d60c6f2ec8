"""Multiplies with the @ operator and launches nothing."""

LOSES = ["launches its Triton kernel (no torch matmul) and allocates its result"]
MAX_SCORE = 0
SAYS = "no Triton kernel was launched"


def matmul(a, b, out=None):
    result = a @ b
    return result if out is None else out.copy_(result)
