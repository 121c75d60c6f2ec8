"""A correct kernel whose only GPU config cannot load on any GPU: 256 x 256 x 128 tiles in 4
stages need 512 KB of shared memory (227 KB is the most any GPU gives a block). The autotuner
has nothing left to skip to, so every check fails, and the message must say why."""

LOSES = ["autotune_grid", "multiplies"]
SAYS = "none of your configs can load on this GPU"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "        (128, 256, 64, 3, 8),\n        (128, 256, 64, 4, 8),\n        (256, 128, 64, 3, 8),\n        (256, 128, 64, 4, 8),\n        (64, 256, 32, 4, 4),\n        (128, 128, 32, 4, 4),\n        (128, 64, 32, 4, 4),\n        (64, 128, 32, 4, 4),\n        (128, 32, 32, 4, 4),\n        (64, 32, 32, 5, 2),\n        (32, 64, 32, 5, 2),\n",
        "        (256, 256, 128, 4, 8),\n",
    ),
]
