"""The prose of the site's pages, measured: sentences, their lengths, short answers, reading ease.

A page (``docs/*.md``) is rendered as the Chinese pages are
(:func:`scripts.commands.translations.rendered_page`: Python-Markdown with the extensions that
decide its structure on the site, its YAML front matter taken off by MkDocs' own reader). Its
*prose* is the text of its paragraphs (``<p>``) and list items (``<li>``, each one unit, a list
inside it read as units of its own): in the body, in admonitions and collapsed notes, in captions
and in exercise solutions. Left out: code blocks and math (``<pre>``), tables, definition lists,
headings, admonition and note titles, images, footnote definitions and footnote marks, HTML
comments. An inline code span (``<code>``, inline math included) reads as one word, ``code``.

Each paragraph is split into sentences by pySBD (``pysbd``, pinned in requirements.txt), a
rule-based sentence splitter that runs offline; a word is a whitespace-separated token with a
letter or a digit in it. (sentencex, the other offline splitter measured on these pages, joined
sentences that follow a closing parenthesis or end in "id.", which makes sentences look longer
than they are; pySBD splits ``nn.Embedding`` written outside a code span, which the pages
rarely do.) Reading ease is textstat's Flesch reading ease of all the
page's prose (``textstat``, pinned, syllables from pyphen).

The *short answer* is the page's first paragraph, right after its title (``# …``), with a list
that directly follows it.

``python -m tests.prose`` prints the measurements of every page as a table (the numbers the
site's limits are set against: ``tests/test_prose.py``).
"""

from __future__ import annotations

import copy
import functools
import statistics
import sys
from dataclasses import dataclass

import pysbd
import textstat

from scripts import ROOT
from scripts.commands.translations import rendered_page

#: The pages measured: every English Markdown page of the site (a Chinese page, ``*.zh.md``, has
#: rules of its own: ``tests/test_zh_prose.py``).
PAGES = sorted(
    p.relative_to(ROOT / "docs").as_posix()
    for p in (ROOT / "docs").glob("*.md")
    if not p.name.endswith(".zh.md")
)
#: What an inline code span counts as: one word.
CODE_WORD = "code"
#: Elements whose paragraphs are not prose: tables, definition lists, footnote definitions.
NOT_PROSE = ("table", "dl", "div.footnote")

_SPLITTER = pysbd.Segmenter(language="en", clean=False)


@dataclass(frozen=True)
class Prose:
    """A page's prose: ``answer`` (its short answer, one paragraph) and ``paragraphs`` (all of
    its prose paragraphs and list items, the short answer first), as plain text."""

    page: str
    answer: str
    paragraphs: tuple[str, ...]

    @functools.cached_property
    def sentences(self) -> tuple[str, ...]:
        """Every sentence of every paragraph, in order (pySBD)."""
        return tuple(s for p in self.paragraphs for s in split_sentences(p))

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


def split_sentences(paragraph: str) -> list[str]:
    """The sentences of one paragraph of plain text, stripped, as pySBD splits them."""
    return [s.strip() for s in _SPLITTER.segment(paragraph) if words(s)]


def words(text: str) -> int:
    """The number of words of ``text``: whitespace-separated tokens with a letter or a digit."""
    return sum(1 for token in text.split() if any(c.isalnum() for c in token))


def paragraph_text(p) -> str:
    """The plain text of an element (a ``<p>``, a list): code spans as :data:`CODE_WORD`,
    footnote marks, images and line breaks left out, whitespace collapsed."""
    for mark in p.select("sup"):
        mark.decompose()
    for code in p.find_all("code"):
        code.replace_with(CODE_WORD)
    return " ".join(p.get_text().split())


@functools.cache
def read_prose(page: str, text: str | None = None) -> Prose:
    """The prose of ``docs/<page>`` (or of the Markdown ``text`` given in its place). Raises
    ``ValueError`` when the page has no title (``<h1>``) followed by a paragraph. Remembered per
    page and text: a page does not change during a run."""
    source = (ROOT / "docs" / page).read_text(encoding="utf-8") if text is None else text
    try:
        soup, answer = rendered_page(source)
    except ValueError as error:
        raise ValueError(f"{page}: {error}") from None
    answer_text = " ".join(paragraph_text(copy.copy(element)) for element in answer)
    for element in soup.select(", ".join(NOT_PROSE)):
        element.decompose()
    for element in soup.select("p.admonition-title, summary"):
        element.decompose()
    paragraphs = []
    for element in soup.find_all(["p", "li"]):
        if element.name == "p" and element.find_parent("li"):
            continue  # read with its list item
        if element.name == "li":  # a list item is a unit of its own, the list inside it aside
            element = copy.copy(element)
            for inner in element.select("ul, ol"):
                inner.decompose()
        if words(text := paragraph_text(element)):
            paragraphs.append(text)
    return Prose(page, answer_text, tuple(paragraphs))


def percentile(values: list[int], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, interpolated (``statistics.quantiles``)."""
    if len(values) < 2:
        return float(values[0]) if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def measure(prose: Prose) -> dict[str, float]:
    """The numbers of one page: short-answer words, sentences, mean and 90th-percentile
    sentence length (words), sentences over 40 and over 50 words, Flesch reading ease."""
    lengths = [words(s) for s in prose.sentences]
    return {
        "answer_words": words(prose.answer),
        "sentences": len(lengths),
        "mean": statistics.fmean(lengths) if lengths else 0.0,
        "p90": percentile(lengths, 90),
        "over_40": sum(n > 40 for n in lengths),
        "over_50": sum(n > 50 for n in lengths),
        "flesch": textstat.flesch_reading_ease(prose.text),
    }


def main() -> None:
    """Print the measurements of every page, then the site's totals."""
    header = (
        f"{'page':<26} {'answer':>6} {'sent.':>5} {'mean':>5} {'p90':>5} "
        f"{'>40':>4} {'%>40':>5} {'>50':>4} {'Flesch':>6}"
    )
    print(header)
    total, over_40, over_50 = 0, 0, 0
    for page in PAGES:
        m = measure(read_prose(page))
        total += m["sentences"]
        over_40 += m["over_40"]
        over_50 += m["over_50"]
        share = 100 * m["over_40"] / m["sentences"] if m["sentences"] else 0.0
        print(
            f"{page:<26} {m['answer_words']:>6} {m['sentences']:>5} {m['mean']:>5.1f} "
            f"{m['p90']:>5.1f} {m['over_40']:>4} {share:>5.1f} {m['over_50']:>4} "
            f"{m['flesch']:>6.1f}"
        )
    print(
        f"{'site':<26} {'':>6} {total:>5} {'':>5} {'':>5} {over_40:>4} "
        f"{100 * over_40 / total:>5.1f} {over_50:>4}"
    )


if __name__ == "__main__":
    sys.exit(main())
