"""Build step: one pass over a page's code blocks, which states each one's number of lines (so an
off-screen block keeps its height), makes it reachable by keyboard and keeps it out of the search
index.

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

Code blocks also stay out of the search index. Every page loads the whole site's index
(``search/search_index.json``); code blocks are most of its text and the part a search needs
least (a block's identifiers are also in the prose and inline code around it, which stay indexed).
Material's search plugin leaves out any element with a ``data-search-exclude`` attribute
(Material's "Setting up site search", "Excluding blocks"; ``Parser.handle_starttag`` in
``material/plugins/search/plugin.py``), which this step puts on every code block's ``<div>``. The
cost: a word that appears only inside code blocks is not found.

It runs in the page's one pass (``scripts/build/page_html.py``), after the notebook step has
turned notebook cells into Material code blocks.
"""

from __future__ import annotations

import html
import re

#: A block as Pygments (through pymdownx.highlight) and the notebook step write it: the opening
#: ``<div>`` whose classes include ``highlight`` (``cls``), its other attributes (``attrs``), then,
#: unless it is annotated already, its title bar if it has one (``title="…"`` on the fence) and
#: its ``<pre>`` up to the first ``</pre>`` (a ``</pre>`` in the code is escaped).
BLOCK = re.compile(
    r'(?P<cls><div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?")(?P<attrs>[^>]*)'
    r'(?P<rest>>\s*(?:<span class="filename">[^<]*</span>\s*)?(?P<pre><pre\b.*?</pre>))?',
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


def annotate_block(match: re.Match) -> str:
    """One code block (a match of :data:`BLOCK`) with ``data-search-exclude`` on its ``<div>``,
    and, when it is not annotated yet, ``style="--code-lines: N"`` on its ``<div>`` and
    ``tabindex="0"`` on its ``<code>``."""
    attrs = match["attrs"]
    exclude = "" if "data-search-exclude" in attrs else " data-search-exclude"
    if match["pre"] is None or re.search(r"\sstyle=", attrs):
        return f'{match["cls"]}{exclude}{attrs}{match["rest"] or ""}'
    rest = CODE_OPEN.sub(r'\g<0> tabindex="0"', match["rest"], count=1)
    return (f'{match["cls"]}{exclude}{attrs} style="--code-lines: {count_lines(match["pre"])}"'
            f"{rest}")


def annotate_code_blocks(page_html: str) -> str:
    """``page_html`` (HTML text) with every code block annotated (:func:`annotate_block`).
    Applying it twice changes nothing more."""
    return BLOCK.sub(annotate_block, page_html)
