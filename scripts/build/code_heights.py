"""Build hook: every code block states its number of lines, so an off-screen block keeps its height.

``docs/stylesheets/extra.css`` lets the browser skip style and layout of code blocks that are off
screen (``content-visibility: auto``), which keeps long articles quick to load on a phone. A
skipped block is laid out at a placeholder height (``contain-intrinsic-size``) until it nears the
viewport. A guessed placeholder makes the page jump when the real block replaces it: the
scrollbar is wrong, a ``#link`` lands off target, and the footer moves under a reader who has
scrolled to the bottom.

Code never wraps (long lines scroll sideways), so a block's height is its line count times the
line height plus its padding, whatever the screen width. This hook writes that count on each
block as a CSS custom property, ``<div class="… highlight" style="--code-lines: N">``, and
``extra.css`` turns it into the placeholder: ``N × 1.4 + 1.544`` times the code font size
(Material's ``line-height: 1.4`` and ``0.772em`` padding above and below; the code font is
``0.85em`` of the block's). ``tests/test_browser.py`` checks placeholder against real height on
every page.

The same step makes each block's ``<code>`` take the keyboard's focus (``tabindex="0"``): a block
wider than its column scrolls sideways, and a scrolling region must be reachable without a mouse
(WCAG 2.1.1; axe-core's ``scrollable-region-focusable``). Material's script (9.8) sets that
attribute on a block that scrolls on a device with hover, and removes it from any other, but
only once it sets a block up, which ``content.lazy`` defers until the block nears the viewport.
Until then the build's attribute stands: which blocks overflow depends on the reader's screen,
so every block gets it.

It runs on every page's HTML after the notebook step has turned notebook cells into Material
code blocks (``scripts/build/hook.py``).
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

#: A block as Pygments (through pymdownx.highlight) and the notebook hook write it: the opening
#: ``<div>`` whose classes include ``highlight`` (other attributes may follow; no ``style`` yet),
#: then its title bar if it has one (``title="…"`` on the fence), then its ``<pre>`` up to the
#: first ``</pre>`` (a ``</pre>`` in the code is escaped).
BLOCK = re.compile(
    r'(?P<open><div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"(?![^>]*\sstyle=)[^>]*)'
    r'(?P<rest>>\s*(?:<span class="filename">[^<]*</span>\s*)?(?P<pre><pre\b.*?</pre>))',
    re.S,
)
TAG = re.compile(r"<[^>]+>")
#: The opening of a block's ``<code>`` element, before its attributes (it has none but a class).
CODE_OPEN = re.compile(r"<code(?=[\s>])(?![^>]*\stabindex=)")


def count_lines(pre_html: str) -> int:
    """The number of lines a ``<pre>…</pre>`` fragment (HTML text) shows, at least 1.

    The fragment's tags are dropped and its entities decoded; a final newline ends the last line
    rather than starting an empty one (Pygments ends every block with one).
    """
    text = html.unescape(TAG.sub("", pre_html))
    return text.removesuffix("\n").count("\n") + 1


def add_line_counts(page_html: str) -> str:
    """``page_html`` (HTML text) with ``style="--code-lines: N"`` on each code block's ``<div>``
    and ``tabindex="0"`` on its ``<code>``."""

    def annotate(match: re.Match) -> str:
        lines = count_lines(match["pre"])
        rest = CODE_OPEN.sub(r'\g<0> tabindex="0"', match["rest"], count=1)
        return f'{match["open"]} style="--code-lines: {lines}"{rest}'

    return BLOCK.sub(annotate, page_html)


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """MkDocs hook: annotate the code blocks of every page (Markdown and notebook pages alike)."""
    return add_line_counts(html_)
