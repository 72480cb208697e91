r"""Math written in LaTeX, rendered to MathML as each page's Markdown is converted.

Pages write block math in a ```` ```math ```` fence and inline math as `` `#!math x^2` ``
(CONTRIBUTING.md, "Blocks that do not run"). This module is a Markdown extension (``mkdocs.yml``
lists it as ``scripts.hooks.markdown_math``, after pymdownx.superfences and
pymdownx.inlinehilite): it adds ``math`` to those two extensions as a custom fence and a custom
inline, as their own ``custom_fences`` and ``custom_inline`` settings would, so that
``mkdocs.yml`` names no Python object and runs no code while it is read. Any engine that loads
Markdown extensions by name renders the math: MkDocs, ProperDocs, Zensical. The LaTeX is
converted by latex2mathml into ``<math>`` elements that browsers render natively (MathML Core),
so no script and no CDN is needed and a page makes no third-party request for its math.

A block may hold several lines: ``\\`` at the top level of the LaTeX (outside braces and
environments) ends one, and each line becomes a display ``<math>`` of its own, stacked, centred
(latex2mathml turns ``aligned`` into ``<mspace linebreak>``, which MathML Core does not break
on). A formula wider than the column scrolls inside its box; the box can take the keyboard's
focus (``tabindex="0"``, WCAG 2.1.1) and is labelled with the formula's source.

Raises :class:`MathError` (a ``ValueError``) when a formula cannot be converted, with the
formula: the page's conversion, and so the build, fails. The module imports nothing of MkDocs.
"""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree as etree

from latex2mathml.converter import convert
from markdown import Extension
from pymdownx.inlinehilite import InlineHiliteException, InlineHilitePattern
from pymdownx.superfences import SuperFencesCodeExtension, SuperFencesException, default_validator

#: What a block formula's lines are cut at: ``\\`` (and its spacing, ``[4pt]``), or a group's edge.
_CUT = re.compile(r"\\[{}]|\\begin(?={)|\\end(?={)|[{}]|\\\\(?:\s*\[[^\]]*\])?")


class MathError(SuperFencesException, InlineHiliteException, ValueError):
    """A formula latex2mathml cannot convert. pymdownx shows the raw text of a fence whose
    formatter raises anything but these two bases, so this fails the page instead."""


def _to_mathml(latex: str, display: str) -> str:
    try:
        return convert(latex.strip(), display=display)
    except Exception as exc:  # noqa: BLE001 - any converter failure is a build error
        raise MathError(f"cannot convert math {latex!r}: {type(exc).__name__}: {exc}") from exc


def split_lines(latex: str) -> list[str]:
    r"""The lines of a block formula, stripped, empty ones left out: ``latex`` cut at each
    ``\\`` (with its spacing, ``\\[4pt]``) outside braces and ``\begin…\end`` environments."""
    lines, depth, start = [], 0, 0
    for m in _CUT.finditer(latex):
        if m[0] in ("{", "\\begin"):
            depth += 1
        elif m[0] in ("}", "\\end"):
            depth -= 1
        elif m[0].startswith("\\\\") and depth == 0:
            lines.append(latex[start : m.start()])
            start = m.end()
    lines.append(latex[start:])
    return [line.strip() for line in lines if line.strip()]


def math_block(src: str, language: str, options, md, **kwargs) -> str:
    """superfences formatter: a focusable box labelled with the source, holding one display
    ``<math>`` per line (:func:`split_lines`; MathML Core breaks no line itself)."""
    mathml = "".join(_to_mathml(line, "block") for line in split_lines(src))
    label = html.escape(" ".join(src.split()))
    return f'<div class="arithmatex" role="math" tabindex="0" aria-label="{label}">{mathml}</div>'


def math_inline(src: str, language: str, md) -> etree.Element:
    """inlinehilite formatter: an inline ``<math>``, stashed so Markdown leaves it untouched."""
    el = etree.Element("span", {"class": "arithmatex"})
    el.text = md.htmlStash.store(_to_mathml(src, "inline"))
    return el


class MathExtension(Extension):
    """Adds the ``math`` fence and the ``#!math`` inline to pymdownx.superfences and
    pymdownx.inlinehilite, through their ``extend_super_fences`` and ``extend_custom_inline``.

    Raises ``ValueError`` when either extension is not loaded before this one (list
    ``scripts.hooks.markdown_math`` after them under ``markdown_extensions``)."""

    def extendMarkdown(self, md) -> None:  # noqa: N802 - Python-Markdown's name
        fences = [e for e in md.registeredExtensions if isinstance(e, SuperFencesCodeExtension)]
        spans = md.inlinePatterns["backtick"] if "backtick" in md.inlinePatterns else None
        if not fences or not isinstance(spans, InlineHilitePattern):
            raise ValueError(
                "scripts.hooks.markdown_math must come after pymdownx.superfences and "
                "pymdownx.inlinehilite in markdown_extensions"
            )
        fences[0].extend_super_fences("math", math_block, default_validator, None)
        spans.extend_custom_inline("math", math_inline)


makeExtension = MathExtension  # what Python-Markdown calls to load the extension by module name
