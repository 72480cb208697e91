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
from matplotlib.ticker import NullFormatter

from snippets.figure_style import Theme, draw_grid, new_diagram, new_figure
from snippets.sparsity.csr_correspondence import TEXTS, TRAIN, fit_vocabulary, vectorise

__all__ = ["sparsity_csr_as_bags", "sparsity_grad_memory"]

#: The smallest font size used, in points: the figures are drawn at most 4.8 in wide, so on a
#: phone's 328 px column this text is shown at 10 * 328 / (4.8 * 72) = 9.5 px or more.
_TEXT = 10


def sparsity_csr_as_bags(theme: Theme) -> Figure:
    """The page's count matrix X [4, 8] and its CSR arrays, read as the inputs of EmbeddingBag.

    Top: X drawn densely (zeros left blank, stored entries highlighted), each row followed by
    its text. Below it: ``indices`` (the ids) and ``data`` (the ``per_sample_weights``), then
    ``indptr`` (the bag ``offsets``, ``include_last_offset=True``), with a line from each
    ``indptr`` entry up to the bag boundary it marks. Drawn 4.7 in wide with every label above
    or beside a short array, so that no text is under 10 pt (legible in a phone's column).
    Raises ``AssertionError`` if the arrays are not a canonical CSR matrix.
    """
    vocab = fit_vocabulary(TRAIN)
    X = vectorise(TEXTS, vocab)
    assert X.has_canonical_format and X.indptr[-1] == X.nnz
    dense = X.toarray()  # only to draw the grid
    n_rows, n_cols = dense.shape
    nnz = X.nnz

    fig, ax = new_diagram(theme, 4.7, 4.75)

    # The matrix (smaller cells than the arrays), its words above, row numbers left, texts right.
    mx, my, mc = 0.7, 0.0, 0.8
    labels = [[f"{v:g}" if v else "" for v in row] for row in dense]
    stored = tuple((r, c) for r in range(n_rows) for c in X.indices[X.indptr[r]:X.indptr[r + 1]])
    draw_grid(ax, mx, my, labels, theme, highlight_cells=stored, cell=mc, fontsize=_TEXT)
    for word, c in vocab.items():
        ax.text(mx + (c + 0.5) * mc, my + 0.12, word, rotation=60, ha="left", va="bottom",
                fontsize=_TEXT, color=theme.muted, rotation_mode="anchor")
    text_x = mx + n_cols * mc + 0.2
    for r, text in enumerate(TEXTS):
        y = my - (r + 0.5) * mc
        ax.text(mx - 0.15, y, f"{r}", ha="right", va="center", fontsize=_TEXT, color=theme.muted)
        ax.text(text_x, y, f"“{text}”", ha="left", va="center", fontsize=_TEXT, color=theme.fg)
    ax.text(text_x, my + 0.15, f"X [{n_rows} × {n_cols}], {nnz} stored", ha="left",
            va="bottom", fontsize=_TEXT, color=theme.fg)

    # The three arrays, each named above (indptr: on its right) with the argument it becomes.
    tops = {"indices": -4.1, "data": -5.75, "indptr": -8.8}
    names = {
        "indices": "indices → input (ids)",
        "data": "data → per_sample_weights",
        "indptr": "indptr → offsets",
    }
    bag_of = np.repeat(np.arange(n_rows), np.diff(X.indptr))  # the bag of each stored entry
    for key, top in tops.items():
        values = getattr(X, key)
        fills = [theme.accent_fill if key == "indptr" or b % 2 == 0 else theme.cell
                 for b in (bag_of if key != "indptr" else range(len(values)))]
        for i, v in enumerate(values):
            ax.add_patch(Rectangle((i, top - 1), 1, 1, facecolor=fills[i],
                                   edgecolor=theme.muted, linewidth=0.6))
            ax.text(i + 0.5, top - 0.5, f"{v:g}", ha="center", va="center", fontsize=_TEXT,
                    color=theme.fg)
        if key == "indptr":
            ax.text(len(values) + 0.3, top - 0.5, names[key], ha="left", va="center",
                    fontsize=_TEXT, color=theme.fg, family="monospace")
        else:
            ax.text(0, top + 0.12, names[key], ha="left", va="bottom", fontsize=_TEXT,
                    color=theme.fg, family="monospace")

    # indptr[n] marks where bag n starts (and bag n - 1 ends) in indices and data.
    # Each line rises straight from the boundary first, leaving room for the bag labels.
    bottom_of_data = tops["data"] - 1
    knee = bottom_of_data - 0.8
    for n, p in enumerate(X.indptr):
        ax.plot([n + 0.5, p, p], [tops["indptr"], knee, bottom_of_data], color=theme.accent,
                linewidth=1.2)
    for b in range(n_rows):
        start, end = X.indptr[b], X.indptr[b + 1]
        if end > start:
            ax.text((start + end) / 2, bottom_of_data - 0.4, f"bag {b}", ha="center",
                    va="center", fontsize=_TEXT, color=theme.accent)
        else:  # indptr[b] == indptr[b + 1]: nothing stored in row b
            ax.text(nnz, tops["indptr"] - 1.45, f"bag {b}: empty (indptr[{b}] = indptr[{b + 1}])",
                    ha="right", va="center", fontsize=_TEXT, color=theme.muted)

    ax.set_xlim(-0.15, nnz + 0.2)
    ax.set_ylim(tops["indptr"] - 1.9, my + 1.4)
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
    fig = new_figure(theme, 4.8, 3.4)
    ax = fig.add_subplot()
    ax.loglog(vs, dense_bytes(vs) / mib, color=theme.accent, linewidth=2)
    ax.loglog(vs, np.full_like(vs, sparse_bytes / mib), color=theme.second, linewidth=2)
    ax.plot(measured, [dense_bytes(v) / mib for v in measured], "o", color=theme.accent)
    ax.plot(measured, [sparse_bytes / mib] * len(measured), "o", color=theme.second)
    ax.text(2e6, dense_bytes(2e6) / mib * 2.5, "dense [V, D]", color=theme.accent,
            ha="right", fontsize=_TEXT + 1)
    ax.text(1e8, sparse_bytes / mib * 2.2, "sparse=True:\nN·(8 + 4D) bytes", color=theme.second,
            ha="right", va="bottom", fontsize=_TEXT + 1)
    # Plain tick labels: matplotlib's 10^k draws its exponent at 70 % size, too small on a phone.
    x_ticks = [1e2, 1e4, 1e6, 1e8]
    ax.set_xticks(x_ticks, ["100", "10k", "1M", "100M"])
    y_ticks = [1e-1, 1e0, 1e1, 1e2, 1e3, 1e4]
    ax.set_yticks(y_ticks, ["0.1", "1", "10", "100", "1k", "10k"])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("num_embeddings V", color=theme.fg, fontsize=_TEXT + 1)
    ax.set_ylabel("gradient size (MiB)", color=theme.fg, fontsize=_TEXT + 1)
    ax.set_title(f"Embedding(V, {D}), {N} lookups", color=theme.fg, fontsize=_TEXT + 1)
    ax.tick_params(colors=theme.fg, which="both", labelsize=_TEXT + 1)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, which="major", color=theme.muted, alpha=0.3, linewidth=0.5)
    return fig
