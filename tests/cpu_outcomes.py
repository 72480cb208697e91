"""The documented outcomes of behaviour that depends on the CPU, observed, never predicted.

A bfloat16 or float16 matrix product on the CPU either keeps a subnormal number of its inputs or
returns zero for it, depending on the instructions that compute it: the native bfloat16
dot-product instructions treat a subnormal input as zero and flush a subnormal output (Intel's
instruction reference for ``VDPBF16PS``, AVX512_BF16, and ``TDPBF16PS``, AMX-BF16; Arm's
``BFDOT`` and ``BFMMLA`` without FEAT_EBF16), and PyTorch's libraries use them where the CPU has
them (docs/lookup-tables.md, "Where the equivalence breaks"). The tests compute the product, then
assert that it is one of these two outcomes, and never anything else.

The same holds for float32 products under a reduced float32 matmul precision
(:data:`REDUCED_PRECISION`): PyTorch may then compute them in TF32 or bfloat16, depending on the
device, the library and the size, so the tests run them under each setting
(:func:`float32_matmul_setting`) and accept the exact result or one within the rounding of those
formats (:func:`exact_or_rounded`).
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Iterator

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
    return t.view(
        {
            torch.float32: torch.int32,
            torch.float64: torch.int64,
            torch.bfloat16: torch.int16,
            torch.float16: torch.int16,
        }[t.dtype]
    )


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
    raise AssertionError(
        f"neither the exact result nor it with subnormals as zero:\n{out}\nexact:\n{ref}"
    )


def x86_cpu_flags() -> set[str] | None:
    """The CPU flags of this machine (:func:`scripts.commands.torch_matrix.cpu_flags`, read from
    ``/proc/cpuinfo``) where it is x86 Linux, else ``None``."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    return cpu_flags() or None


#: The settings that let PyTorch compute float32 matrix products in a lower precision: the two
#: reduced levels of ``torch.set_float32_matmul_precision`` (TF32 or bfloat16 where a fast
#: algorithm is available), oneDNN's bfloat16 for CPU products, and TF32 for cuBLAS products.
#: Many training scripts set one of them.
REDUCED_PRECISION = (
    "precision=high",
    "precision=medium",
    "mkldnn.matmul=bf16",
    "cuda.matmul.allow_tf32",
)

#: bfloat16 keeps 8 significant bits: rounding a normal float32 number to it (to nearest) errs
#: by at most 2**-8 of the number; TF32 (10 fraction bits, rounded or truncated) by less.
ROUNDING = 2.0**-8
#: bfloat16's smallest normal number: below it rounding loses more, up to the whole number (a
#: subnormal input can be read as zero), so the bound there is this absolute one.
BF16_TINY = 2.0**-126
#: The float32 numbers that round to a finite bfloat16: below (2 - 2**-8) * 2**127, about
#: 3.396e38; from there on they round to inf.
BF16_OVERFLOW = (2 - 2.0**-8) * 2.0**127


def legacy_precision() -> str | None:
    """``torch.get_float32_matmul_precision()``, or ``None`` where PyTorch refuses to read it:
    after a per-backend setting (``torch.backends.mkldnn.matmul.fp32_precision``) disagrees with
    it, PyTorch 2.15 raises ``RuntimeError`` rather than mix its old and new settings."""
    try:
        return torch.get_float32_matmul_precision()
    except RuntimeError:
        return None


def within_bfloat16_range(table: torch.Tensor) -> torch.Tensor:
    """``table`` clamped to bfloat16's finite range (±3.39e38) when it is float32: past it, a
    product computed in bfloat16 rounds to inf, which no reduced-precision outcome allows. Other
    dtypes are returned as they are."""
    if table.dtype != torch.float32:
        return table
    big = torch.finfo(torch.bfloat16).max
    return table.clamp(-big, big)


def reduced_settings() -> tuple[str, ...]:
    """The settings of :data:`REDUCED_PRECISION` that :func:`float32_matmul_setting` can set and
    restore in this process: all of them, or, where the process already mixes PyTorch's old and
    new precision settings (:func:`legacy_precision` is ``None``), the per-backend one only."""
    if legacy_precision() is None:
        return ("mkldnn.matmul=bf16",)
    return REDUCED_PRECISION


@contextlib.contextmanager
def float32_matmul_setting(setting: str) -> Iterator[None]:
    """Run the body with one of :data:`REDUCED_PRECISION` in force, then restore what was set
    before: the precision of ``torch.set_float32_matmul_precision`` first, then the per-backend
    values (``torch.backends.fp32_precision``, ``torch.backends.mkldnn.matmul.fp32_precision``,
    ``torch.backends.cuda.matmul.fp32_precision``; restoring in this order keeps PyTorch's old
    and new precision settings consistent, which PyTorch 2.15 checks). Raises ``ValueError`` for
    an unknown setting, and ``RuntimeError`` for one of the old settings where the process
    already mixes old and new ones (:func:`reduced_settings` leaves those out)."""
    if setting not in REDUCED_PRECISION:
        raise ValueError(f"unknown setting {setting!r}; one of {REDUCED_PRECISION}")
    backends = torch.backends
    legacy = legacy_precision()
    if legacy is None and setting != "mkldnn.matmul=bf16":
        raise RuntimeError(
            f"{setting} needs the old precision setting, which PyTorch will not "
            "read here (see reduced_settings)"
        )
    per_backend = (
        backends.fp32_precision,
        backends.mkldnn.matmul.fp32_precision,
        backends.cuda.matmul.fp32_precision,
    )
    try:
        if setting.startswith("precision="):
            torch.set_float32_matmul_precision(setting.removeprefix("precision="))
        elif setting == "mkldnn.matmul=bf16":
            backends.mkldnn.matmul.fp32_precision = "bf16"
        else:
            backends.cuda.matmul.allow_tf32 = True
        yield
    finally:
        if legacy is not None:
            torch.set_float32_matmul_precision(legacy)
        (
            backends.fp32_precision,
            backends.mkldnn.matmul.fp32_precision,
            backends.cuda.matmul.fp32_precision,
        ) = per_backend


def exact_or_rounded(
    out: torch.Tensor,
    ref: torch.Tensor,
    spread: torch.Tensor | None = None,
    slack: float | torch.Tensor = 0.0,
) -> str:
    """Which documented outcome a float32 product ``out`` is under a reduced float32 matmul
    precision, against the exact result ``ref`` (same shape): ``"exact"`` when it equals ``ref``
    (:func:`same_but_signed_zeros`); ``"rounded"`` when each entry is within the rounding of a
    bfloat16 input, ``|out - ref| <= 2**-8 * spread + slack`` (``spread`` defaults to ``|ref|``,
    the one number a one-hot product's entry copies; ``slack`` is the float32 summation's own
    error where an entry adds several numbers), with ``2**-126`` in place of the relative term
    where ``spread`` is below bfloat16's smallest normal number. Raises ``AssertionError`` for
    anything else, a non-finite difference included; ``ref`` must lie within bfloat16's range
    (:data:`BF16_OVERFLOW`), where rounding cannot overflow."""
    if same_but_signed_zeros(out, ref):
        return "exact"
    spread = (ref.abs() if spread is None else spread).double()
    assert (spread < BF16_OVERFLOW).all(), "past bfloat16's range: rounding gives inf"
    slack = slack.double() if isinstance(slack, torch.Tensor) else slack
    bound = torch.where(spread >= BF16_TINY, spread * ROUNDING, BF16_TINY) + slack
    error = (out.double() - ref.double()).abs()
    if error.isfinite().all() and (error <= bound).all():
        return "rounded"
    raise AssertionError(
        f"neither the exact result nor within bfloat16 rounding of it:\n{out}\nexact:\n{ref}"
    )
