"""The GPU's sizes the notes reason with: SMs, L2, the shared memory a
program may have. Needs a GPU. t4_notes §2 (whether grouped order shows) and §6 (stages
and shared memory) quote its output, content/experiments/gpu_properties.out.

Run from the repository root: python3 content/experiments/gpu_properties.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch
from triton.runtime import driver

props = torch.cuda.get_device_properties(0)
# triton's own reading of the device: the shared-memory limit it checks each launch against
triton_props = driver.active.utils.get_device_properties(torch.cuda.current_device())
print(f"compute capability  sm_{props.major}{props.minor}")
print(f"SMs                 {props.multi_processor_count}")
print(f"L2 cache            {props.L2_cache_size} bytes = {props.L2_cache_size / 2**20:.1f} MiB")
print(f"shared memory       {triton_props['max_shared_mem']} bytes per program at most (triton)")
print(f"memory              {props.total_memory / 2**30:.1f} GiB")
