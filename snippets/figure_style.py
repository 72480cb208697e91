"""Shared look of every generated figure: palettes for Material's light and dark schemes.

Each figure function in ``snippets/<page_pkg>/figures.py`` has the signature
``fn(theme: Theme) -> Figure`` and draws only with the colours of the theme it is given, so the
same code yields the ``-light.svg`` and ``-dark.svg`` variants that a page shows with Material's
``#only-light`` / ``#only-dark`` suffixes. Backgrounds stay transparent: the page's own background
shows through.

Rendering is byte-identical across runs: a fixed ``svg.hashsalt`` (the ids matplotlib gives
clip paths and glyphs), no ``Date`` metadata, and text kept as text (``svg.fonttype = "none"``)
so the files stay small and take the reader's sans-serif font instead of one fetched from the web.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display: figures are only ever rendered to SVG

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

__all__ = [
    "THEMES",
    "Theme",
    "FigureFunction",
    "draw_grid",
    "new_diagram",
    "new_figure",
    "render_svg",
    "smallest_text_px",
    "PHONE_COLUMN_PX",
    "MIN_TEXT_PX",
]


@dataclass(frozen=True)
class Theme:
    """Colours for one Material palette (all values are CSS hex strings).

    ``name`` is ``"light"`` or ``"dark"`` and ends up in the file name
    (``figures/<page>/<function>-<name>.svg``). ``cmap`` names a matplotlib colormap that reads on
    the palette's background. Contrast of ``fg`` and ``muted`` against ``page_bg`` is at least 4.5:1
    (WCAG AA for text); ``page_bg`` is Material's background for that scheme.
    """

    name: str
    fg: str  # text, axes, outlines
    muted: str  # secondary text, grid, unselected cells
    page_bg: str  # Material's page background (the SVG itself stays transparent)
    accent: str  # the thing the figure is about (selected rows, the "1" of a one-hot)
    accent_fill: str  # translucent-looking fill behind accented cells
    second: str  # a second series, contrasting with accent
    cell: str  # fill of ordinary matrix cells
    cmap: str  # diverging colormap for signed values (gradients, weights)


THEMES: tuple[Theme, ...] = (
    Theme(
        name="light",
        fg="#1f2328",
        muted="#57606a",
        page_bg="#ffffff",
        accent="#c2410c",
        accent_fill="#fed7aa",
        second="#3949ab",
        cell="#eef1f6",
        cmap="RdBu_r",
    ),
    Theme(
        name="dark",
        fg="#e6e8ee",
        muted="#a9b1bd",
        page_bg="#1e2129",
        accent="#fb923c",
        accent_fill="#7c2d12",
        second="#8c9eff",
        cell="#2b3040",
        cmap="RdBu_r",
    ),
)

#: What every figure function looks like: it takes a theme and returns a matplotlib figure.
FigureFunction = Callable[[Theme], Figure]

_RC = {
    "svg.hashsalt": "embedding-executed",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 11,
    "axes.facecolor": "none",
    "figure.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "path.simplify": True,
}


def new_figure(theme: Theme, width: float, height: float) -> Figure:
    """Return an empty figure styled for ``theme``.

    ``width`` and ``height`` are in inches (at 72 points per inch, as SVG user units).
    The figure is not attached to pyplot's global state, so callers never need to close it.
    """
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.patch.set_alpha(0.0)
    # Default text colour for everything drawn on this figure.
    fig.set_edgecolor(theme.fg)
    return fig


def new_diagram(theme: Theme, width: float, height: float) -> tuple[Figure, Axes]:
    """Return ``(figure, axes)`` for a diagram: no axis lines or ticks, equal x and y scales.

    What the matrix and array pictures draw on (cells stay square). ``width`` and ``height`` are
    in inches, as in :func:`new_figure`.
    """
    fig = new_figure(theme, width, height)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    return fig, ax


#: How wide a figure is drawn on a 360 px phone: the text column of Material's layout at that
#: viewport (360 px less two 16 px margins), measured in Chromium on the built site.
PHONE_COLUMN_PX = 328

#: The smallest text a figure may show at that width, in CSS px (the site's bound for
#: phone readability; about 7 pt, the size of a footnote in print).
MIN_TEXT_PX = 9.0

_SVG_WIDTH = re.compile(r'<svg\b[^>]*\bviewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"')
_FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)px")


def smallest_text_px(svg: bytes | str, width_px: float) -> float:
    """The smallest text of a matplotlib SVG when the image is shown ``width_px`` CSS px wide.

    matplotlib writes text as ``<text>`` with ``font-size: Npx`` in the SVG's user units (points,
    with ``svg.fonttype = "none"``) and never scales it, so on screen a text is
    ``N * width_px / viewBox width`` px tall. Returns ``inf`` for an SVG without text; raises
    ``ValueError`` if the SVG has no ``viewBox``.
    """
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    box = _SVG_WIDTH.search(text)
    if box is None:
        raise ValueError("SVG without a viewBox")
    sizes = [float(s) for s in _FONT_SIZE.findall(text)]
    return min(sizes, default=float("inf")) * width_px / float(box.group(1))


def render_svg(fn: FigureFunction, theme: Theme) -> bytes:
    """Call the figure function ``fn`` for ``theme`` and return the figure as SVG bytes (UTF-8).

    The function is called inside the shared rcParams (fonts, transparent background, SVG hash
    salt), so identical code gives byte-identical output on every build. Raises whatever ``fn``
    or matplotlib raises; a ``TypeError`` if ``fn`` does not return a matplotlib ``Figure``.
    """
    with plt.rc_context(_RC):
        fig = fn(theme)
        if not isinstance(fig, Figure):
            raise TypeError(f"{fn.__name__} returned {type(fig).__name__}, not a matplotlib Figure")
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, transparent=True)
    return numbered_clip_ids(buf.getvalue())


#: A clip path's id as matplotlib's SVG backend writes it: ``p`` and 10 hexadecimal digits.
_CLIP_ID = re.compile(rb'<clipPath id="(p[0-9a-f]{10})">')


def numbered_clip_ids(svg: bytes) -> bytes:
    """``svg`` with each clip path's id replaced by ``clip<n>``, numbered in order of appearance,
    and every reference to it likewise.

    matplotlib names a clip rectangle by a hash of its unrounded coordinates, so a layout that
    differs in the last bit of a float (seen after another figure had been drawn in the same
    process: text metrics cached by the font) renames it, while every coordinate the file holds
    (rounded to 6 decimals) is the same. Numbering keeps the bytes equal wherever the drawing is.
    """
    ids = list(dict.fromkeys(m.group(1) for m in _CLIP_ID.finditer(svg)))
    for n, old in enumerate(ids):
        svg = svg.replace(b'id="' + old + b'"', b'id="clip%d"' % n)
        svg = svg.replace(b"url(#" + old + b")", b"url(#clip%d)" % n)
    return svg


def draw_grid(
    ax,
    x: float,
    y: float,
    labels: list[list[str]],
    theme: Theme,
    *,
    highlight_rows: tuple[int, ...] = (),
    highlight_cells: tuple[tuple[int, int], ...] = (),
    cell: float = 1.0,
    fontsize: float = 10,
) -> None:
    """Draw a matrix as a grid of labelled square cells on ``ax`` (data coordinates).

    ``labels[r][c]`` is the text of row ``r``, column ``c``; row 0 is drawn at the top, with the
    grid's top-left corner at ``(x, y)`` and cells ``cell`` units wide. Rows in
    ``highlight_rows`` and cells in ``highlight_cells`` get the theme's accent fill and edge.
    Raises ``ValueError`` if the rows of ``labels`` differ in length.
    """
    widths = {len(row) for row in labels}
    if len(widths) > 1:
        raise ValueError(f"ragged grid: row lengths {sorted(widths)}")
    for r, row in enumerate(labels):
        for c, text in enumerate(row):
            hot = r in highlight_rows or (r, c) in highlight_cells
            ax.add_patch(
                Rectangle(
                    (x + c * cell, y - (r + 1) * cell),
                    cell,
                    cell,
                    facecolor=theme.accent_fill if hot else theme.cell,
                    edgecolor=theme.accent if hot else theme.muted,
                    linewidth=1.4 if hot else 0.6,
                )
            )
            ax.text(
                x + (c + 0.5) * cell,
                y - (r + 0.5) * cell,
                text,
                ha="center",
                va="center",
                fontsize=fontsize,
                color=theme.fg,
            )
