"""Math written in LaTeX, rendered to MathML as each page's Markdown is converted.

Pages write block math in a ```` ```math ```` fence and inline math as `` `#!math x^2` ``
(a pymdownx.superfences custom fence and a pymdownx.inlinehilite custom inline, both declared in
``mkdocs.yml`` with this module's formatters, so any engine that runs those Markdown extensions
renders the math: MkDocs, ProperDocs, Zensical). The LaTeX is
converted by latex2mathml into ``<math>`` elements that browsers render natively (MathML Core),
so no script and no CDN is needed and a page makes no third-party request for its math.

A block may hold several lines: ``\\`` at the top level of the LaTeX (outside braces and
environments) ends one, and each line becomes a display ``<math>`` of its own, stacked, centred.
(latex2mathml turns ``aligned`` into ``<mspace linebreak>``, which MathML Core does not break
on.) A formula wider than the column scrolls inside its box; the box can take the keyboard's
focus (``tabindex="0"``, WCAG 2.1.1) and is labelled with the formula's source.

Raises :class:`MathError` (a ``ValueError``) when a formula cannot be converted, with the
formula: the page's conversion, and so the build, fails. The module imports nothing of MkDocs.
"""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree as etree

from latex2mathml.converter import convert
from pymdownx.inlinehilite import InlineHiliteException
from pymdownx.superfences import SuperFencesException

#: The optional spacing after a line break, ``[4pt]`` in ``\\[4pt]``.
_SPACING = re.compile(r"\s*\[[^\]]*\]")


class MathError(SuperFencesException, InlineHiliteException, ValueError):
    """A formula latex2mathml cannot convert; the message holds the formula and the reason.

    pymdownx turns any other exception of a formatter into the fence's raw text, silently; these
    two classes are the ones it lets through, so a bad formula fails the page's conversion.
    """


def _to_mathml(latex: str, display: str) -> str:
    try:
        return convert(latex.strip(), display=display)
    except Exception as exc:  # noqa: BLE001 - any converter failure is a build error
        raise MathError(f"cannot convert math {latex!r}: {type(exc).__name__}: {exc}") from exc


def split_lines(latex: str) -> list[str]:
    r"""The lines of a block formula: ``latex`` cut at each ``\\`` outside braces and
    ``\begin{…}…\end{…}`` environments, each stripped; empty lines left out. Escaped braces
    (``\{``, ``\}``) are characters, not groups; the spacing of a line break (``\\[4pt]``)
    is dropped with it."""
    lines, depth, start, i = [], 0, 0, 0
    while i < len(latex):
        if latex.startswith(("\\{", "\\}"), i):
            i += 2
            continue
        if latex.startswith("\\begin{", i) or latex[i] == "{":
            depth += 1
        elif latex.startswith("\\end{", i) or latex[i] == "}":
            depth -= 1
        if latex.startswith("\\\\", i):
            if depth == 0:
                lines.append(latex[start:i])
                start = i + 2
                spacing = _SPACING.match(latex, start)
                if spacing:
                    start = spacing.end()
            i += 2
            continue
        i += 1
    lines.append(latex[start:])
    return [line.strip() for line in lines if line.strip()]


def math_block(source: str, language: str, class_name: str, options, md, **kwargs) -> str:
    """superfences formatter: a ```` ```math ```` fence becomes a box of block ``<math>``
    elements, one per line (:func:`split_lines`)."""
    mathml = "".join(_to_mathml(line, "block") for line in split_lines(source))
    label = html.escape(" ".join(source.split()), quote=True)
    return (f'<div class="arithmatex" role="math" tabindex="0" aria-label="{label}">'
            f"{mathml}</div>")


def math_inline(source: str, language: str, class_name: str, md) -> etree.Element:
    """inlinehilite formatter: `` `#!math …` `` becomes an inline ``<math>`` element.

    The MathML is stashed so that Markdown's inline processors leave it untouched.
    """
    el = etree.Element("span", {"class": "arithmatex"})
    el.text = md.htmlStash.store(_to_mathml(source, "inline"))
    return el
