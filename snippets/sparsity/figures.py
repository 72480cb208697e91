"""Figures for the article "Sparsity".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/<function>-light.svg`` and ``-dark.svg``.
What is drawn is computed here: the CSR matrix comes from the page's own vectoriser
(``snippets/sparsity/csr_correspondence.py``), and the memory curves come from a formula that
is first checked against gradients PyTorch actually produces.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from snippets.figure_style import Theme, draw_grid, new_diagram, new_figure
from snippets.sparsity.csr_correspondence import TEXTS, TRAIN, fit_vocabulary, vectorise

__all__ = ["sparsity_csr_as_bags", "sparsity_grad_memory"]


def sparsity_csr_as_bags(theme: Theme) -> Figure:
    """The page's count matrix X [4, 8] and its CSR arrays, read as the inputs of EmbeddingBag.

    Top: X drawn densely (zeros left blank, stored entries highlighted). Bottom: ``indptr`` (the
    bag ``offsets``, ``include_last_offset=True``), ``indices`` (the ids) and ``data`` (the
    ``per_sample_weights``), with a line from each ``indptr`` entry to the bag boundary it marks.
    Raises ``AssertionError`` if the arrays are not a canonical CSR matrix.
    """
    vocab = fit_vocabulary(TRAIN)
    X = vectorise(TEXTS, vocab)
    assert X.has_canonical_format and X.indptr[-1] == X.nnz
    dense = X.toarray()  # only to draw the grid
    n_rows, n_cols = dense.shape
    nnz = X.nnz

    fig, ax = new_diagram(theme, 8.4, 5.0)

    # The matrix, with its words above and its texts on the left.
    mx, my = 9.0, 13.0
    labels = [[f"{v:g}" if v else "" for v in row] for row in dense]
    stored = tuple((r, c) for r in range(n_rows) for c in X.indices[X.indptr[r]:X.indptr[r + 1]])
    draw_grid(ax, mx, my, labels, theme, highlight_cells=stored)
    for word, c in vocab.items():
        ax.text(mx + c + 0.5, my + 0.15, word, rotation=60, ha="left", va="bottom",
                fontsize=9, color=theme.muted)
    for r, text in enumerate(TEXTS):
        ax.text(mx - 0.2, my - r - 0.5, f"{r}: “{text}”", ha="right", va="center",
                fontsize=9, color=theme.fg)
    ax.text(mx + n_cols + 0.3, my - n_rows / 2, f"X  [{n_rows} × {n_cols}]\n{nnz} stored",
            ha="left", va="center", fontsize=10, color=theme.fg)

    # The three arrays.
    ax_x = 5.0
    rows_y = {"indptr": 8.3, "indices": 6.2, "data": 5.0}
    names = {
        "indptr": "indptr\n→ offsets",
        "indices": "indices\n→ input (ids)",
        "data": "data\n→ per_sample_weights",
    }
    bag_of = np.repeat(np.arange(n_rows), np.diff(X.indptr))  # the bag of each stored entry
    for key, y in rows_y.items():
        values = getattr(X, key)
        fills = [theme.accent_fill if key == "indptr" or b % 2 == 0 else theme.cell
                 for b in (bag_of if key != "indptr" else range(len(values)))]
        for i, v in enumerate(values):
            ax.add_patch(Rectangle((ax_x + i, y - 1), 1, 1, facecolor=fills[i],
                                   edgecolor=theme.muted, linewidth=0.6))
            ax.text(ax_x + i + 0.5, y - 0.5, f"{v:g}", ha="center", va="center", fontsize=10,
                    color=theme.fg)
        ax.text(ax_x - 0.25, y - 0.5, names[key], ha="right", va="center", fontsize=9,
                color=theme.fg, family="monospace")

    # indptr[n] marks where bag n starts (and bag n - 1 ends) in indices and data.
    top_of_indices = rows_y["indices"]
    for n, p in enumerate(X.indptr):
        ax.plot([ax_x + n + 0.5, ax_x + p], [rows_y["indptr"] - 1, top_of_indices],
                color=theme.accent, linewidth=1.2)
    for b in range(n_rows):
        start, end = X.indptr[b], X.indptr[b + 1]
        if end > start:
            ax.text(ax_x + (start + end) / 2, rows_y["data"] - 1.45, f"bag {b}", ha="center",
                    va="center", fontsize=9, color=theme.accent)
        else:  # indptr[b] == indptr[b + 1]: nothing stored in row b
            ax.text(ax_x + nnz + 0.3, rows_y["indices"] - 0.5 - 1.2 * (b - n_rows + 1),
                    f"bag {b}: empty\n(indptr[{b}] = indptr[{b + 1}])", ha="left",
                    va="center", fontsize=9, color=theme.muted)

    ax.set_xlim(-1.5, 21.5)
    ax.set_ylim(3.1, 14.7)
    return fig


def _grad_nbytes(grad: torch.Tensor) -> int:
    """Bytes held by a gradient: a dense tensor's storage, or a COO tensor's indices + values."""
    if grad.is_sparse:
        return grad._indices().nbytes + grad._values().nbytes
    return grad.nbytes


def sparsity_grad_memory(theme: Theme) -> Figure:
    """Memory of the weight gradient of ``nn.Embedding(V, 64)`` for 1024 lookups, against V.

    Dense: ``V * D * 4`` bytes (float32 ``[V, D]``). Sparse (``sparse=True``, uncoalesced COO):
    ``N * 8`` bytes of int64 indices plus ``N * D * 4`` bytes of values, whatever ``V`` is.
    Both formulas are asserted against gradients PyTorch produces for the small ``V`` drawn as
    dots; the lines extend them to ``V = 10**8``. Sizes are in MiB (2**20 bytes).
    """
    D, N = 64, 1024

    def dense_bytes(v):
        return v * D * 4

    sparse_bytes = N * 8 + N * D * 4
    measured = [1_000, 10_000, 100_000]
    for V in measured:
        gen = torch.Generator().manual_seed(0)
        idx = torch.randint(V, (N,), generator=gen)
        for sparse in (False, True):
            emb = torch.nn.Embedding(V, D, sparse=sparse)
            emb(idx).sum().backward()
            expected = sparse_bytes if sparse else dense_bytes(V)
            assert _grad_nbytes(emb.weight.grad) == expected, (V, sparse)

    vs = np.logspace(2, 8, 61)
    mib = 2.0**20
    fig = new_figure(theme, 7.0, 3.8)
    ax = fig.add_subplot()
    ax.loglog(vs, dense_bytes(vs) / mib, color=theme.accent, linewidth=2)
    ax.loglog(vs, np.full_like(vs, sparse_bytes / mib), color=theme.second, linewidth=2)
    ax.plot(measured, [dense_bytes(v) / mib for v in measured], "o", color=theme.accent)
    ax.plot(measured, [sparse_bytes / mib] * len(measured), "o", color=theme.second)
    ax.text(3e6, dense_bytes(3e6) / mib * 2.2, "dense [V, D] grad", color=theme.accent,
            ha="right", fontsize=10)
    ax.text(3e6, sparse_bytes / mib * 1.8, "sparse=True: N·(8 + 4D) bytes", color=theme.second,
            ha="right", fontsize=10)
    ax.set_xlabel("num_embeddings V", color=theme.fg)
    ax.set_ylabel("gradient size (MiB)", color=theme.fg)
    ax.set_title(f"weight gradient of Embedding(V, {D}) after {N} lookups", color=theme.fg,
                 fontsize=11)
    ax.tick_params(colors=theme.fg, which="both")
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, which="major", color=theme.muted, alpha=0.3, linewidth=0.5)
    return fig
