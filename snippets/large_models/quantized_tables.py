"""An embedding table stored in 8 and 4 bits per entry with ``torch.ao``: memory and error measured.

A ``[V, D]`` float32 table (GPT-2 small's width, a tenth of its vocabulary, drawn from
N(0, 0.02) as GPT-2 initialises it) is quantized row by row: each row keeps its own float scale
and offset, and every entry becomes an integer in ``0 … 255`` (8 bits) or ``0 … 15`` (4 bits,
two entries per byte). The script measures the bytes of the packed tables that PyTorch's
quantized embedding kernels read, the worst and mean error of a looked-up row, and checks that
the error stays within half a quantization step of each row.

It uses the modules ``torch.ao.nn.quantized.Embedding`` and ``EmbeddingBag`` (eager-mode
quantization, still shipped in PyTorch 2.15.0). Creating an 8-bit or a 4-bit one emits a
deprecation warning. Its text, like https://github.com/pytorch/pytorch/issues/184982, names the
types ``torch.quint8``, ``torch.qint8`` and ``torch.qint32``, not the 4-bit ``torch.quint4x2``;
the maintained successor is torchao
(https://github.com/pytorch/ao). The row-wise format is FBGEMM's; the prepack operators are
``torch.ops.quantized.embedding_bag_byte_prepack`` and ``embedding_bag_4bit_prepack``
(``aten/src/ATen/native/quantized/cpu/qembeddingbag_prepack.cpp``).

Run it: ``python snippets/large_models/quantized_tables.py`` (about a second).
``quantized_tables.out`` is what it prints.
"""

import warnings

import torch
import torch.ao.nn.quantized as nnq
from torch import nn
from torch.ao.quantization import (
    float_qparams_weight_only_qconfig,
    float_qparams_weight_only_qconfig_4bit,
)

V, D = 5_000, 768  # rows, width (GPT-2 small's width)


def quantize_embedding(table: nn.Embedding, bits: int) -> nn.Module:
    """``table`` ([V, D] float32) as a quantized module with ``bits`` (8 or 4) per entry.

    8 bits: ``nnq.Embedding`` (``torch.quint8``). 4 bits: ``nnq.EmbeddingBag`` with one id per
    bag (``torch.quint4x2``), because ``nnq.Embedding.from_float`` builds its module with the
    default 8-bit dtype and the 4-bit module it returns cannot look anything up (shown on the
    page). Both compute a row as ``scale[v] * q[v] + offset[v]`` in float32.
    Raises ``ValueError`` for other bit widths, and for 4 bits when ``D`` is odd (two entries
    share a byte; ``nnq.EmbeddingBag.from_float`` would return rows one entry too wide, holding
    wrong numbers, without an error: shown on the page).
    """
    if bits not in (8, 4):
        raise ValueError(f"bits must be 8 or 4, got {bits}")
    if bits == 4 and table.embedding_dim % 2:
        raise ValueError(f"4-bit rows need an even width, got {table.embedding_dim}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*quantized tensor creation.*deprecated")
        if bits == 8:
            table.qconfig = float_qparams_weight_only_qconfig
            return nnq.Embedding.from_float(table)
        bag = nn.EmbeddingBag.from_pretrained(table.weight, mode="sum")
        bag.qconfig = float_qparams_weight_only_qconfig_4bit
        return nnq.EmbeddingBag.from_float(bag)


def lookup(module: nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """Rows ``ids`` ((N,) int64) of a quantized module from :func:`quantize_embedding`:
    ``(N, D)`` float32."""
    if isinstance(module, nnq.EmbeddingBag):
        return module(ids, torch.arange(len(ids)))  # N bags of one id each
    return module(ids)


def main() -> None:
    # --8<-- [start:quantize]
    torch.manual_seed(0)
    table = nn.Embedding(V, D)
    nn.init.normal_(table.weight, std=0.02)  # GPT-2's initialisation
    W = table.weight.detach()
    ids = torch.arange(V)  # every row

    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # the warning comes from C++, once per process otherwise
    caught = {}
    try:
        builders = {8: lambda: nnq.Embedding.from_float(_with_qconfig(nn.Embedding(4, 8))),
                    4: lambda: nnq.EmbeddingBag(4, 8, dtype=torch.quint4x2)}
        for bits, build in builders.items():
            with warnings.catch_warnings(record=True) as caught[bits]:
                warnings.simplefilter("always")
                build()
    finally:
        torch.set_warn_always(warn_always)
    named = ("torch.quint8", "torch.qint8", "torch.qint32")  # the types pytorch#184982 names
    for bits, warned in caught.items():  # PyTorch 2.15.0 warns for 8-bit and for 4-bit tables
        texts = [str(w.message) for w in warned if "deprecated" in str(w.message)]
        assert texts, f"no deprecation warning for {bits}-bit rows"
        assert all(all(t in m for t in named) and "quint4x2" not in m for m in texts)

    print(f"{'storage':<10}{'bytes/row':>10}{'MiB':>8}{'of fp32':>9}"
          f"{'max |error|':>13}{'mean |error|':>14}")
    row_range = W.max(dim=1).values - W.min(dim=1).values  # what each row's scale spans
    results = {}
    for name, bits in (("float32", 32), ("bfloat16", 16), ("8-bit", 8), ("4-bit", 4)):
        if bits == 32:
            rows, packed_bytes = W, W.nbytes
        elif bits == 16:
            rows, packed_bytes = W.bfloat16().float(), W.bfloat16().nbytes
        else:
            module = quantize_embedding(table, bits)
            rows = lookup(module, ids)
            prepack = (torch.ops.quantized.embedding_bag_byte_prepack if bits == 8
                       else torch.ops.quantized.embedding_bag_4bit_prepack)
            packed = prepack(W)  # the same row-wise format the modules hold
            packed_bytes = packed.nbytes
            # Each row: D entries of `bits` bits, then its scale and offset
            # (two float32 for 8 bits, two float16 for 4 bits).
            assert packed.shape == (V, D * bits // 8 + (8 if bits == 8 else 4))
            step = row_range / (2**bits - 1)  # the quantization step of each row
            error_per_row = (rows - W).abs().max(dim=1).values
            slack = 1.02 if bits == 4 else 1.001  # 4-bit rows keep a float16 scale and offset
            assert (error_per_row <= step / 2 * slack).all()  # within half a step
        err = (rows - W).abs()
        results[name] = packed_bytes, err.max().item(), err.mean().item()
        # Errors to two significant digits: the third differs between CPU kernels (the 8-bit
        # maximum is 3.494995e-04 with ATEN_CPU_CAPABILITY=default, 3.495014e-04 with avx2).
        print(f"{name:<10}{packed_bytes / V:>10.0f}{packed_bytes / 2**20:>8.2f}"
              f"{packed_bytes / W.nbytes:>9.1%}{err.max().item():>13.1e}"
              f"{err.mean().item():>14.1e}")

    assert results["8-bit"][0] == V * (D + 8)  # 1 byte per entry + 8 per row
    assert results["4-bit"][0] == V * (D // 2 + 4)  # half a byte per entry + 4 per row
    assert results["4-bit"][1] > results["8-bit"][1] > 0
    ratio = results["4-bit"][2] / results["8-bit"][2]  # mean errors: 255 steps against 15
    assert 15 < ratio < 19, ratio
    # --8<-- [end:quantize]

    # --8<-- [start:flat_row]
    eps = torch.finfo(torch.float32).eps  # the observer's floor for a step
    flat = torch.tensor([[0.5, 0.5 + 100 * eps, 0.5 + 200 * eps, 0.5 + 250 * eps]])
    flat_module = quantize_embedding(nn.Embedding.from_pretrained(flat), 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert flat_module.weight().q_per_channel_scales().item() == 1.0  # not range / 255
    rows = lookup(flat_module, torch.tensor([0]))
    assert torch.equal(rows, flat[:, :1].expand(1, 4))  # every entry snaps to the minimum
    zero = quantize_embedding(nn.Embedding.from_pretrained(torch.zeros(1, 4)), 8)
    assert torch.equal(lookup(zero, torch.tensor([0])), torch.zeros(1, 4))  # no spread: exact
    print(f"\na row spread over {250 * eps:.1e}: step = {250 / 255:.2f} x eps, so scale 1.0;"
          f" max |error| {(rows - flat).abs().max():.1e}")
    # --8<-- [end:flat_row]

    # --8<-- [start:far_row]
    torch.manual_seed(0)
    far = 1000 + torch.rand(4, 16)  # rows far from zero, spread about 1
    half_step = {bits: (far.max(1).values - far.min(1).values) / (2**bits - 1) / 2
                 for bits in (8, 4)}
    for bits in (8, 4):
        rows = lookup(quantize_embedding(nn.Embedding.from_pretrained(far), bits),
                      torch.arange(4))
        worst = ((rows - far).abs().max(1).values / half_step[bits]).max()
        if bits == 8:
            assert worst <= 1.001  # float32 scale and offset: within half a step
        else:
            assert worst > 1.5  # float16 offset: 1000 is stored to the nearest 0.5
    # --8<-- [end:far_row]

    # --8<-- [start:embedding_4bit]
    table.qconfig = float_qparams_weight_only_qconfig_4bit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        broken = nnq.Embedding.from_float(table)  # 4-bit rows, module says 8-bit
    assert broken.weight().dtype == torch.quint4x2 and broken.dtype == torch.quint8
    out = broken(torch.tensor([0, V - 1]))  # runs the 8-bit kernel on 4-bit rows
    # A packed 4-bit row is D/2 + 4 = 388 bytes; read as an 8-bit row (entries, then 8 bytes of
    # scale and offset) it yields 380 "entries": the wrong width, and numbers that mean nothing.
    assert out.shape == (2, D // 2 + 4 - 8) != (2, D)
    print(f"\n4-bit nnq.Embedding.from_float: lookup of 2 ids gives {tuple(out.shape)}, "
          f"expected (2, {D})")
    # --8<-- [end:embedding_4bit]

    # --8<-- [start:odd_width]
    torch.manual_seed(0)
    odd = torch.randn(4, 5)  # four rows of an odd width: 5 entries
    bag = nn.EmbeddingBag.from_pretrained(odd, mode="sum")
    bag.qconfig = float_qparams_weight_only_qconfig_4bit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        odd_4bit = nnq.EmbeddingBag.from_float(bag)  # no error, no warning...
    rows = odd_4bit(torch.arange(4), torch.arange(4))  # one id per bag: the rows themselves
    assert rows.shape == (4, 6)  # ...but rows one entry too wide
    assert (rows[:, :5] - odd).abs().max() > 1.0  # and not the table's numbers
    try:
        torch.ops.quantized.embedding_bag_4bit_prepack(odd)  # the packing op checks the width
    except RuntimeError as err:
        assert "multiple of 2" in str(err)
    else:
        raise AssertionError("an odd width should be refused by the 4-bit prepack")
    try:
        quantize_embedding(nn.Embedding.from_pretrained(odd), 4)  # this file's helper refuses
    except ValueError:
        pass
    else:
        raise AssertionError("quantize_embedding should refuse an odd width at 4 bits")
    print(f"\n4-bit nnq.EmbeddingBag.from_float, 5 entries per row: lookup gives"
          f" {tuple(rows.shape)}, max |error| {(rows[:, :5] - odd).abs().max():.1f}")
    # --8<-- [end:odd_width]


def _with_qconfig(module: nn.Embedding) -> nn.Embedding:
    """``module`` with the 8-bit weight-only qconfig set (for the warning check)."""
    module.qconfig = float_qparams_weight_only_qconfig
    return module


if __name__ == "__main__":
    main()
