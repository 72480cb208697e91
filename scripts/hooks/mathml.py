"""Build hook: math written in LaTeX is rendered to MathML when the site builds.

Pages write block math in a ```` ```math ```` fence and inline math as `` `#!math x^2` ``
(pymdownx.superfences custom fence and pymdownx.inlinehilite custom inline). The LaTeX is
converted by latex2mathml into ``<math>`` elements that browsers render natively (MathML Core),
so no script and no CDN is needed and a page makes no third-party request for its math.

Raises ``PluginError`` at build time when a formula cannot be converted, with the formula.
"""

from __future__ import annotations

import html
from xml.etree import ElementTree as etree

from latex2mathml.converter import convert
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError


def _to_mathml(latex: str, display: str) -> str:
    try:
        return convert(latex.strip(), display=display)
    except Exception as exc:  # noqa: BLE001 - any converter failure is a build error
        raise PluginError(f"cannot convert math {latex!r}: {type(exc).__name__}: {exc}") from exc


def math_block(source: str, language: str, class_name: str, options, md, **kwargs) -> str:
    """superfences formatter: a ```` ```math ```` fence becomes a block ``<math>`` element."""
    mathml = _to_mathml(source, "block")
    label = html.escape(source.strip(), quote=True)
    return f'<div class="arithmatex" role="math" aria-label="{label}">{mathml}</div>'


def math_inline(source: str, language: str, class_name: str, md) -> etree.Element:
    """inlinehilite formatter: `` `#!math …` `` becomes an inline ``<math>`` element.

    The MathML is stashed so that Markdown's inline processors leave it untouched.
    """
    el = etree.Element("span", {"class": "arithmatex"})
    el.text = md.htmlStash.store(_to_mathml(source, "inline"))
    return el


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Register the math fence and inline formatters with pymdownx (MkDocs event)."""
    mdx = config.mdx_configs
    fences = mdx.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
    fences.append({"name": "math", "class": "arithmatex", "format": math_block})
    inline = mdx.setdefault("pymdownx.inlinehilite", {}).setdefault("custom_inline", [])
    inline.append({"name": "math", "class": "arithmatex", "format": math_inline})
    return config
