"""Inputs that end where mapped GPU memory ends, so that a load past their last element faults.

A GPU run cannot otherwise see a load outside an input whose value the store's mask throws
away: the padding around a judge's buffer is ordinary memory, and a kernel reads it without a
trace. The CUDA driver's virtual memory API can reserve a range of addresses larger than the
memory mapped into it (cuMemAddressReserve, cuMemCreate, cuMemMap). The executor copies an
input's buffer into such a range, placed so that the input's last byte is the last mapped one,
and runs the kernels on that copy: a load of the element after the last one touches an address
with nothing behind it, and the GPU faults ("an illegal memory access"), as compute-sanitizer
would report it, with nothing the learner needs to install.

The copy keeps every byte's alignment modulo 16 (triton specializes pointers on it, and tensor
descriptors need it), so up to 15 bytes may lie between the last element and the unmapped
page: where an input's end is a multiple of 16 bytes, the first element past it faults.
"""

import ctypes
from dataclasses import dataclass
from typing import Self

import torch

ALIGNMENT = 16  # bytes: what triton specializes a pointer on


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [
        ("compressionType", ctypes.c_ubyte),
        ("gpuDirectRDMACapable", ctypes.c_ubyte),
        ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 4),
    ]


class _AllocationProp(ctypes.Structure):  # CUmemAllocationProp
    _fields_ = [
        ("type", ctypes.c_int),
        ("requestedHandleTypes", ctypes.c_int),
        ("location", _Location),
        ("win32HandleMetaData", ctypes.c_void_p),
        ("allocFlags", _AllocFlags),
    ]


class _AccessDesc(ctypes.Structure):  # CUmemAccessDesc
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


PINNED, ON_A_DEVICE, READ_WRITE = 1, 1, 3  # CU_MEM_ALLOCATION_TYPE_PINNED, ... _PROT_READWRITE
_u64, _size = ctypes.c_ulonglong, ctypes.c_size_t
_driver: list = []


def driver():
    """libcuda, with the signatures of the calls used here."""
    if not _driver:
        cuda = ctypes.CDLL("libcuda.so.1")
        signatures = {
            "cuMemGetAllocationGranularity": [
                ctypes.POINTER(_size),
                ctypes.POINTER(_AllocationProp),
                ctypes.c_int,
            ],
            "cuMemAddressReserve": [ctypes.POINTER(_u64), _size, _size, _u64, _u64],
            "cuMemCreate": [ctypes.POINTER(_u64), _size, ctypes.POINTER(_AllocationProp), _u64],
            "cuMemMap": [_u64, _size, _size, _u64, _u64],
            "cuMemSetAccess": [_u64, _size, ctypes.POINTER(_AccessDesc), _size],
            "cuMemUnmap": [_u64, _size],
            "cuMemRelease": [_u64],
            "cuMemAddressFree": [_u64, _size],
        }
        for name, argtypes in signatures.items():
            getattr(cuda, name).argtypes = argtypes
            getattr(cuda, name).restype = ctypes.c_int
        _driver.append(cuda)
    return _driver[0]


def _call(name: str, *args) -> None:
    result = getattr(driver(), name)(*args)
    if result != 0:
        raise RuntimeError(f"{name} failed with CUresult {result}")


class _CudaBytes:
    """Device memory as torch.as_tensor takes it without a copy (__cuda_array_interface__)."""

    def __init__(self, address: int, nbytes: int):
        self.__cuda_array_interface__ = {
            "shape": (nbytes,),
            "typestr": "|u1",
            "data": (address, False),
            "version": 3,
        }


class MappedEnd:
    """`nbytes` bytes of device memory whose last byte is at most ALIGNMENT - 1 bytes before
    an address range with nothing mapped: `bytes` is a uint8 tensor of them, whose first byte
    is aligned to ALIGNMENT. close() unmaps it; the tensor must not be used after that."""

    def __init__(self, nbytes: int, device: int):
        prop = _AllocationProp(type=PINNED, location=_Location(ON_A_DEVICE, device))
        granularity = _size()
        _call("cuMemGetAllocationGranularity", ctypes.byref(granularity), ctypes.byref(prop), 0)
        page = granularity.value
        self.mapped = -(-(nbytes + ALIGNMENT) // page) * page
        self.reserved = self.mapped + page  # the page after the mapped ones stays empty
        self.address, self.handle = _u64(), _u64()
        _call("cuMemAddressReserve", ctypes.byref(self.address), self.reserved, 0, 0, 0)
        _call("cuMemCreate", ctypes.byref(self.handle), self.mapped, ctypes.byref(prop), 0)
        _call("cuMemMap", self.address, self.mapped, 0, self.handle, 0)
        access = _AccessDesc(_Location(ON_A_DEVICE, device), READ_WRITE)
        _call("cuMemSetAccess", self.address, self.mapped, ctypes.byref(access), 1)
        end = self.address.value + self.mapped
        start = (end - nbytes) // ALIGNMENT * ALIGNMENT
        self.bytes = torch.as_tensor(_CudaBytes(start, nbytes), device=f"cuda:{device}")

    def close(self) -> None:
        self.bytes = None
        _call("cuMemUnmap", self.address, self.mapped)
        _call("cuMemRelease", self.handle)
        _call("cuMemAddressFree", self.address, self.reserved)


def end_in_bytes(spec: dict, itemsize: int) -> int:
    """Where a tensor spec's last element ends, in bytes from the start of its buffer."""
    shape, stride = spec["shape"], spec["stride"]
    if 0 in shape:
        return spec["offset"] * itemsize
    last = spec["offset"] + sum((size - 1) * step for size, step in zip(shape, stride, strict=True))
    return (last + 1) * itemsize


@dataclass
class _Moved:
    ref: str
    judge: torch.Tensor  # the judge's buffer, as bytes
    mapped: MappedEnd


class PastTheEnd:
    """While entered, the storages of the named tensors' buffers are copies that end at the
    tensor's last element, in a MappedEnd; on a clean exit what the kernels left there is
    copied back into the judge's buffers. After a fault nothing is copied or unmapped: the
    process's CUDA context is gone, and the executor ends."""

    def __init__(self, names: list[str], guarded: dict, storages):
        self.names, self.guarded, self.storages = names, guarded, storages
        self.moved: list[_Moved] = []

    def __enter__(self) -> Self:
        for name in self.names:
            spec = self.guarded[name]
            ref = spec["ref"]
            if any(m.ref == ref for m in self.moved):
                continue  # two tensors in one buffer: the first one's end is kept
            end = end_in_bytes(spec, getattr(torch, spec["dtype"]).itemsize)
            storage = self.storages.storages[ref]
            judge = torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)
            mapped = MappedEnd(end, torch.device(storage.device).index or 0)
            mapped.bytes.copy_(judge[:end])
            self.storages.storages[ref] = mapped.bytes.untyped_storage()
            self.moved.append(_Moved(ref, judge, mapped))
        return self

    def __exit__(self, kind, error, trace) -> None:
        if kind is not None:
            return
        torch.cuda.synchronize()
        for moved in self.moved:
            moved.judge[: moved.mapped.bytes.numel()].copy_(moved.mapped.bytes)
            self.storages.storages[moved.ref] = moved.judge.untyped_storage()
        torch.cuda.synchronize()
        for moved in self.moved:
            moved.mapped.close()
