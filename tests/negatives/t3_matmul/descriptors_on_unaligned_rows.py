"""Reads every matrix through a tensor descriptor, whatever its shape: a descriptor needs each row
to start a multiple of 16 bytes after the one before, which rows of K or N fp16 values do only
when K and N are multiples of 8. Right on the shapes that are; on the others the GPU's tensor
memory accelerator cannot run the launch at all (the interpreter would, so the judge refuses it
there too)."""

LOSES = ["k_tail"]
SAYS = "16-byte aligned"
EDITS_OF = "tests/positives/t3_matmul/tensor_descriptors.py"
EDITS = [
    (
        "        m.stride(0) * m.element_size() % 16 == 0 and m.data_ptr() % 16 == 0 for m in matrices",
        "        m.data_ptr() % 16 == 0 for m in matrices",
    ),
]
