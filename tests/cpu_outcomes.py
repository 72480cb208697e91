"""The documented outcomes of behaviour that depends on the CPU, observed, never predicted.

A bfloat16 or float16 matrix product on the CPU either keeps a subnormal number of its inputs or
returns zero for it, depending on the instructions that compute it: the native bfloat16
dot-product instructions treat a subnormal input as zero and flush a subnormal output (Intel's
instruction reference for ``VDPBF16PS``, AVX512_BF16, and ``TDPBF16PS``, AMX-BF16; Arm's
``BFDOT`` and ``BFMMLA`` without FEAT_EBF16), and PyTorch's libraries use them where the CPU has
them (docs/lookup-tables.md, "Where the equivalence breaks"). The tests compute the product, then
assert that it is one of these two outcomes, and never anything else.
"""

from __future__ import annotations

import platform

import torch

from scripts.commands.torch_matrix import cpu_flags

#: /proc/cpuinfo flags of x86 instructions that compute bfloat16 with subnormals as zero.
X86_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "avx_ne_convert"})


def subnormals_flushed(t: torch.Tensor) -> torch.Tensor:
    """``t`` (any floating dtype, any shape) with every subnormal number replaced by a zero of
    the same sign."""
    return torch.where(t.abs() < torch.finfo(t.dtype).tiny, t * 0, t)


def bits(t: torch.Tensor) -> torch.Tensor:
    """The bit patterns of a float16, bfloat16, float32 or float64 tensor, as integers of the
    same width and shape."""
    return t.view({torch.float32: torch.int32, torch.float64: torch.int64,
                   torch.bfloat16: torch.int16, torch.float16: torch.int16}[t.dtype])


def same_but_signed_zeros(a: torch.Tensor, b: torch.Tensor) -> bool:
    """``torch.equal(a, b)`` and the same bits wherever ``b`` is not zero (a ``-0.0`` of ``b``
    may be ``+0.0`` in ``a``: a sum with exact zeros turns one into the other)."""
    nonzero = b != 0
    return torch.equal(a, b) and torch.equal(bits(a)[nonzero], bits(b)[nonzero])


def kept_or_flushed(out: torch.Tensor, ref: torch.Tensor) -> str:
    """Which documented outcome ``out`` (a product's result) is, against ``ref`` (the exact
    result, same shape and dtype): ``"kept"`` when it equals ``ref``, ``"flushed"`` when it equals
    ``ref`` with its subnormal numbers as zeros (and differs from ``ref``); a ``-0.0`` may come
    out as ``+0.0`` in both. Raises ``AssertionError`` for anything else."""
    if same_but_signed_zeros(out, ref):
        return "kept"
    if same_but_signed_zeros(out, subnormals_flushed(ref)):
        return "flushed"
    raise AssertionError(f"neither the exact result nor it with subnormals as zero:\n{out}\n"
                         f"exact:\n{ref}")


def x86_cpu_flags() -> set[str] | None:
    """The CPU flags of this machine (:func:`scripts.commands.torch_matrix.cpu_flags`, read from
    ``/proc/cpuinfo``) where it is x86 Linux, else ``None``."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    return cpu_flags() or None
