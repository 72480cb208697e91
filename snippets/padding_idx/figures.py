"""Figures for the article "padding_idx".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/<function>-light.svg`` and ``-dark.svg``.
Everything drawn is computed here with PyTorch (``torch.manual_seed(0)``), and each function
asserts the property its picture is about, so a drawing cannot drift from what PyTorch does.
"""

from __future__ import annotations

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from snippets.figure_style import Theme, draw_grid, new_diagram, new_figure

__all__ = ["padding_batch_to_output", "padding_grad_heatmap"]

#: Id of the pad token in both figures (``padding_idx``).
PAD = 0
#: Three sentences as token ids (vocabulary of 8), of lengths 4, 2 and 3.
SEQUENCES = [[5, 2, 7, 3], [4, 6], [1, 2, 6]]


def padding_batch_to_output(theme: Theme) -> Figure:
    """A ``[3, 4]`` padded id batch next to its ``[3, 4, 4]`` embedding output, pads marked.

    The batch is ``pad_sequence`` of :data:`SEQUENCES` with ``padding_value=0``; the output is
    ``nn.Embedding(8, 4, padding_idx=0)`` applied to it under ``torch.manual_seed(0)``, each
    position drawn as a strip of ``embedding_dim = 4`` coloured cells (theme colormap, symmetric
    around 0). Raises ``AssertionError`` if the pad positions of the output are not zero.
    """
    batch = pad_sequence([torch.tensor(s) for s in SEQUENCES], batch_first=True, padding_value=PAD)
    torch.manual_seed(0)
    emb = nn.Embedding(8, 4, padding_idx=PAD)
    out = emb(batch).detach()  # [B, L, D]
    pads = batch == PAD
    assert not out[pads].any()
    B, L, D = out.shape

    # Sized for a phone's column: 4.8 in wide, no text under 10 pt (about 9.5 CSS px at 328 px).
    fig, ax = new_diagram(theme, 4.8, 2.2)

    top = 3.0
    draw_grid(
        ax,
        0.0,
        top,
        [[str(v) for v in row] for row in batch.tolist()],
        theme,
        highlight_cells=tuple(map(tuple, pads.nonzero().tolist())),
        fontsize=11,
    )
    ax.text(L / 2, top + 0.2, f"ids [B={B}, L={L}]", ha="center", va="bottom", color=theme.fg,
            fontsize=10)
    ax.text(L / 2, -0.2, "padding_value=0", ha="center", va="top", color=theme.muted,
            fontsize=10, family="monospace")

    ax.add_patch(FancyArrowPatch((L + 0.25, top / 2), (L + 1.95, top / 2), arrowstyle="-|>",
                                 mutation_scale=16, color=theme.accent, linewidth=1.8))
    ax.text(L + 1.1, top / 2 + 0.2, "emb(ids)", ha="center", va="bottom", color=theme.accent,
            family="monospace", fontsize=10)

    # Output: one mesh, each position a strip of D cells, a blank (masked) cell between strips.
    x0, gap = L + 2.3, 1
    strip = 1.0  # width of one position's strip, in grid units; each number is 1/D wide
    img = np.ma.masked_all((B, L * (D + gap) - gap))
    for c in range(L):
        img[:, c * (D + gap): c * (D + gap) + D] = out[:, c, :].numpy()
    vmax = float(out.abs().max())
    width = img.shape[1] * strip / D
    ax.pcolormesh(np.linspace(x0, x0 + width, img.shape[1] + 1), np.linspace(top, top - B, B + 1),
                  img, cmap=theme.cmap, norm=Normalize(-vmax, vmax), edgecolors="none")
    for b, c in pads.nonzero().tolist():
        xs = x0 + c * (D + gap) * strip / D
        ax.add_patch(Rectangle((xs, top - b - 1), strip, 1, fill=False, edgecolor=theme.accent,
                               linewidth=1.6, linestyle="--"))
    ax.text(x0 + width / 2, top + 0.2, f"output [B={B}, L={L}, D={D}]", ha="center",
            va="bottom", color=theme.fg, fontsize=10)
    ax.text(x0 + width / 2, -0.2, "dashed: pad positions\n= row 0 = zeros", ha="center",
            va="top", color=theme.accent, fontsize=10, linespacing=1.3)

    ax.set_xlim(-0.1, x0 + width + 0.1)
    ax.set_ylim(-1.45, top + 0.75)
    return fig


def _row_grad_norms(padding_idx: int | None, steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Norm of each row of the accumulated ``weight.grad`` after every step, and id counts.

    ``nn.Embedding(8, 4, padding_idx=padding_idx)`` sees ``steps`` random padded batches of
    shape ``[4, 6]`` (``torch.manual_seed(0)``); gradients accumulate (no ``zero_grad``).
    Returns the norms, float32 ``[V=8, steps]``, and how often each id occurred, int64 ``[8]``.
    """
    torch.manual_seed(0)
    emb = nn.Embedding(8, 4, padding_idx=padding_idx)
    target = torch.randn(4, 6, 4)
    norms, counts = [], torch.zeros(8, dtype=torch.int64)
    for _ in range(steps):
        lengths = torch.randint(3, 7, (4,))
        ids = torch.randint(1, 8, (4, 6))
        ids[torch.arange(6) >= lengths.unsqueeze(1)] = PAD
        counts += torch.bincount(ids.flatten(), minlength=8)
        ((emb(ids) - target) ** 2).sum().backward()
        norms.append(emb.weight.grad.norm(dim=1).clone())
    return torch.stack(norms, dim=1), counts


def padding_grad_heatmap(theme: Theme) -> Figure:
    """Accumulated gradient norm per row over 8 steps, with and without ``padding_idx=0``.

    Two heatmaps of shape ``[V=8 rows, 8 steps]`` in the theme colormap, one colour scale. With
    ``padding_idx=0`` row 0 is exactly 0 at every step while the other rows grow; without it
    row 0, the most frequent id, ends with more gradient than any other row; rows 1 to 7 are
    identical in both panels. Raises ``AssertionError`` if any of these facts does not hold.
    """
    steps = 8
    with_pad, counts = _row_grad_norms(PAD, steps)
    without, _ = _row_grad_norms(None, steps)
    assert int(counts.argmax()) == PAD  # the pad is the most frequent id in these batches
    assert not with_pad[PAD].any()
    assert (with_pad[1:, -1] > 0).all()
    assert int(without[:, -1].argmax()) == PAD
    assert torch.equal(with_pad[1:], without[1:])  # padding_idx changes row 0 only
    vmax = float(max(with_pad.max(), without.max()))
    norm = Normalize(-vmax, vmax)  # zero sits at the colormap's neutral centre
    # 32 discrete levels: matplotlib rasterises colorbars of 50 or more colours into an embedded
    # PNG, and the site's SVGs must be pure vector (tests/test_figures.py).
    cmap = colormaps[theme.cmap].resampled(32)

    # Sized for a phone's column: 4.8 in wide, no text under 10 pt (about 9.5 CSS px at 328 px);
    # the two panels keep sharing one row axis, so rows 1 to 7 can be compared across them.
    fig = new_figure(theme, 4.8, 3.7)
    fig.get_layout_engine().set(w_pad=0.02, h_pad=0.02, wspace=0.03)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, data, title in (
        (axes[0], with_pad, "padding_idx=0"),
        (axes[1], without, "padding_idx=None"),
    ):
        mesh = ax.pcolormesh(np.arange(steps + 1) + 0.5, np.arange(9) - 0.5, data.numpy(),
                             cmap=cmap, norm=norm, edgecolors=theme.muted, linewidth=0.3)
        ax.set_title(title, color=theme.fg, fontsize=10, family="monospace")
        ax.add_patch(Rectangle((0.5, -0.5), steps, 1, fill=False, edgecolor=theme.accent,
                               linewidth=2.0))
        ax.tick_params(colors=theme.fg, labelsize=10, length=2.5, pad=2)
        for spine in ax.spines.values():
            spine.set_color(theme.muted)
        ax.set_xticks(range(1, steps + 1))
    fig.supxlabel("step (gradients accumulate)", color=theme.fg, fontsize=10)
    axes[0].set_yticks(range(8), ["0 (pad)", *map(str, range(1, 8))])
    axes[0].invert_yaxis()
    axes[0].set_ylabel("row of weight", color=theme.fg, fontsize=10, labelpad=2)
    axes[0].text(steps / 2 + 0.5, 0, "exactly 0", ha="center", va="center",
                 color=theme.accent, fontsize=10)
    bar = fig.colorbar(mesh, ax=axes, shrink=0.9, aspect=25, pad=0.02)
    bar.set_label("‖weight.grad[row]‖", color=theme.fg, fontsize=10)
    bar.ax.set_ylim(0, vmax)
    bar.ax.tick_params(colors=theme.fg, labelsize=10, length=2.5, pad=2)
    bar.outline.set_edgecolor(theme.muted)
    return fig
