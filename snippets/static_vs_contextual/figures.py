"""Figures for the article "Static vs contextual embeddings".

Both figures draw the model of ``snippets/static_vs_contextual/bank_in_context.py`` (a seeded
``nn.Embedding`` and one untrained ``nn.TransformerEncoderLayer``) on its sentence pair; every
number is computed here with PyTorch when the site builds, and each function raises
``AssertionError`` if the picture would contradict what the page asserts.
"""

from __future__ import annotations

import torch
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

from snippets.figure_style import Theme, new_figure
from snippets.static_vs_contextual.bank_in_context import SENTENCES, build, build_vocab, encode

__all__ = ["svc_pca_static_vs_contextual", "svc_attention_weights"]

#: The smallest font size used, in points: the figures are drawn at most 4.8 in wide, so on a
#: phone's 328 px column this text is shown at 10 * 328 / (4.8 * 72) = 9.5 px or more.
_TEXT = 10


@torch.no_grad()
def _vectors() -> tuple[torch.Tensor, torch.Tensor]:
    """Static and contextual vectors of both sentences, stacked: two float32 tensors ``[12, 16]``.

    Rows 0-5 are the words of ``SENTENCES[0]``, rows 6-11 those of ``SENTENCES[1]``.
    """
    stoi = build_vocab(SENTENCES)
    emb, layer = build(len(stoi))
    ids = torch.cat([encode(s, stoi) for s in SENTENCES])  # [2, 6]
    static = emb(ids)
    context = layer(static)
    return static.reshape(-1, static.shape[-1]), context.reshape(-1, context.shape[-1])


def _pca2(x: torch.Tensor) -> torch.Tensor:
    """Project the rows of ``x`` (``[N, D]``) on their first two principal axes: ``[N, 2]``.

    Computed with an SVD of the centred rows; the sign of each axis is fixed so that the largest
    coordinate along it is positive (SVD signs are otherwise arbitrary).
    """
    centred = x - x.mean(0)
    _, _, vh = torch.linalg.svd(centred, full_matrices=False)
    proj = centred @ vh[:2].T
    flip = torch.sign(proj.gather(0, proj.abs().argmax(0, keepdim=True)))
    return proj * flip


def svc_pca_static_vs_contextual(theme: Theme) -> Figure:
    """Two panels, one above the other: the 12 tokens of the sentence pair after the embedding
    (top), and after the layer (bottom).

    Each panel is its own 2-D PCA projection of the 16-dimensional vectors. Words shared by the
    sentences ("i", "the", "bank") sit on one point in the static panel (asserted: exactly equal
    vectors) and on two points joined by a dashed line in the contextual panel (asserted: not
    equal). Stacked and 4.8 in wide, with no text under 10 pt, so that it reads on a phone.
    """
    static, context = _vectors()
    words = [s.split() for s in SENTENCES]
    n = len(words[0])
    shared = [(i, words[1].index(w)) for i, w in enumerate(words[0]) if w in words[1]]
    assert [words[0][i] for i, _ in shared] == ["i", "the", "bank"]

    fig = new_figure(theme, 4.8, 6.0)
    axes = fig.subplots(2, 1)
    for ax, vecs, title in (
        (axes[0], static, "static: nn.Embedding"),
        (axes[1], context, "contextual: + TransformerEncoderLayer"),
    ):
        pts = _pca2(vecs)
        a, b = pts[:n], pts[n:]
        for i, j in shared:
            if ax is axes[0]:
                assert torch.equal(vecs[i], vecs[n + j])
            else:
                assert not torch.allclose(vecs[i], vecs[n + j])
                ax.plot([a[i, 0], b[j, 0]], [a[i, 1], b[j, 1]], ls="--", lw=1.2, color=theme.muted)
        ax.scatter(a[:, 0], a[:, 1], s=110, facecolors="none", edgecolors=theme.accent,
                   linewidths=1.8, label=f"“{SENTENCES[0]}”", zorder=3)
        ax.scatter(b[:, 0], b[:, 1], s=28, marker="s", color=theme.second,
                   label=f"“{SENTENCES[1]}”", zorder=4)
        for k, (x, y) in enumerate(a.tolist()):
            ax.annotate(words[0][k], (x, y), xytext=(6, 5), textcoords="offset points",
                        color=theme.accent, fontsize=_TEXT)
        for k, (x, y) in enumerate(b.tolist()):
            if ax is axes[0] and words[1][k] in words[0]:
                continue  # same point, already labelled
            ax.annotate(words[1][k], (x, y), xytext=(6, -11), textcoords="offset points",
                        color=theme.second, fontsize=_TEXT)
        ax.set_title(title, color=theme.fg, fontsize=_TEXT + 1)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.margins(0.18)
        for spine in ax.spines.values():
            spine.set_color(theme.muted)
    leg = fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=1,
                     frameon=False, fontsize=_TEXT)
    for text in leg.get_texts():
        text.set_color(theme.fg)
    return fig


def svc_attention_weights(theme: Theme) -> Figure:
    """The encoder layer's attention weights for ``SENTENCES[0]``, averaged over its 2 heads.

    A ``6 x 6`` grid: row = the token being updated (query), column = the token it reads from
    (key); every row sums to 1 (asserted). Colour runs from the theme's cell colour (0) to its
    accent (the largest weight).
    """
    stoi = build_vocab(SENTENCES)
    emb, layer = build(len(stoi))
    with torch.no_grad():
        x = emb(encode(SENTENCES[0], stoi))
        _, weights = layer.self_attn(x, x, x, need_weights=True, average_attn_weights=True)
    w = weights[0]  # [6, 6]
    torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[0]))
    words = SENTENCES[0].split()
    # What the page's alt text and caption say about these numbers.
    assert words[int(w[words.index("bank")].argmax())] == "sat"
    assert (round(w.min().item(), 2), round(w.max().item(), 2)) == (0.09, 0.34)

    fig = new_figure(theme, 4.6, 4.3)
    ax = fig.add_subplot()
    cmap = LinearSegmentedColormap.from_list("cell_to_accent", [theme.cell, theme.accent])
    top = w.max().item()
    # pcolormesh, not imshow: vector cells (imshow would embed a raster PNG in the SVG).
    ax.pcolormesh(w, cmap=cmap, vmin=0.0, vmax=top, edgecolors=theme.muted, linewidth=0.4)
    ax.set_aspect("equal")
    ax.invert_yaxis()  # row 0 ("i") at the top, like a matrix
    for r in range(w.shape[0]):
        for c in range(w.shape[1]):
            v = w[r, c].item()
            ax.text(c + 0.5, r + 0.5, f"{v:.2f}", ha="center", va="center", fontsize=_TEXT,
                    color=theme.page_bg if v > 0.6 * top else theme.fg)
    centres = [k + 0.5 for k in range(len(words))]
    ax.set_xticks(centres, words, color=theme.fg)
    ax.set_yticks(centres, words, color=theme.fg)
    ax.tick_params(colors=theme.muted, labelcolor=theme.fg)
    ax.set_xlabel("reads from (key)", color=theme.fg)
    ax.set_ylabel("token being updated (query)", color=theme.fg)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    return fig
