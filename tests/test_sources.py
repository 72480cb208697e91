"""A footnote that reports what a source says carries the source's own words.

A reader should be able to check a cited claim without leaving the page, so a footnote that says
what its source says quotes it. The rule is mechanical:

* A *footnote* is a definition ``[^id]: text`` at the start of a line in ``docs/*.md``, with the
  lines indented by four spaces that continue it.
* It *cites a source* when it holds a Markdown link to a web address (``[text](https://…)``).
* Its *own words* are its text with every link (text and address), every quotation and every
  parenthesis that holds a year (``(2019)``, ``(arXiv 2016, EACL 2017)``) taken out.
* It is a *bare reference* when its own words hold no code span and at most
  :data:`BARE_WORDS` words (a word: a token with a letter in it). That is room for
  ``Mikolov et al., [title](…) (2013).`` or ``The update rules of [Adam](…) and [AdamW](…).``,
  and not for a sentence about what the source contains.
* A footnote *reports what a source says* when it cites a source and is not a bare reference.
* A *quotation* is text in double quotation marks, straight (``"…"``) or curly (``“…”``), at
  least :data:`QUOTE_CHARS` characters long; code spans inside it are part of it (source code is
  quoted as ``"`…`"``).

Every footnote that reports what a source says holds at least one quotation. Whether the quote
matches its source is checked by the person who writes it, against the source at the version
the footnote names; the test cannot fetch it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from scripts import ROOT

#: The most words a bare reference may hold outside its links, quotations and dated parentheses.
BARE_WORDS = 6
#: The fewest characters a quotation holds between its marks.
QUOTE_CHARS = 20

PAGES = sorted((ROOT / "docs").glob("*.md"))

_DEFINITION = re.compile(r"^\[\^([^\]]+)\]:[ \t]*(.*)$")
_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\((?:[^()\s]|\([^()\s]*\))+\)")
_WEB_LINK = re.compile(r"\]\(https?://")
_QUOTE = re.compile(r'"((?:`[^`]*`|[^"`])+)"|“([^”]+)”')
_DATED = re.compile(r"\([^()]*\b(?:1[89]|20)\d\d\b[^()]*\)")
_CODE = re.compile(r"`[^`]+`")


@dataclass(frozen=True)
class Footnote:
    """One footnote definition: its page, its id and its text (continuation lines joined)."""

    page: str
    name: str
    text: str


def footnotes(markdown: str, page: str = "") -> list[Footnote]:
    """The footnote definitions of a page's Markdown source, in order.

    A definition runs from its ``[^id]:`` line through the lines indented by four spaces after
    it; a blank line ends it unless an indented line follows. Lines inside fenced code blocks at
    the start of a line are skipped.
    """
    found: list[list[str]] = []
    current: list[str] | None = None
    fenced = False
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            current = None
            continue
        if fenced:
            continue
        match = _DEFINITION.match(line)
        if match:
            current = [match.group(1), match.group(2)]
            found.append(current)
        elif current is not None and line.startswith("    ") and line.strip():
            current[1] += " " + line.strip()
        elif current is not None and not line.strip():
            following = next((x for x in lines[i + 1 :] if x.strip()), "")
            if not following.startswith("    "):
                current = None
        else:
            current = None
    return [Footnote(page, name, text) for name, text in found]


def quotations(text: str) -> list[str]:
    """The quotations in ``text``: passages in straight or curly double quotation marks of at
    least :data:`QUOTE_CHARS` characters."""
    passages = [a or b for a, b in _QUOTE.findall(text)]
    return [p for p in passages if len(p.strip()) >= QUOTE_CHARS]


def own_words(text: str) -> str:
    """``text`` without its links, its quotations and its parentheses that hold a year."""
    text = _LINK.sub(" ", text)
    text = _QUOTE.sub(" ", text)
    return _DATED.sub(" ", text)


def reports_a_source(text: str) -> bool:
    """Whether a footnote's ``text`` reports what a source says: it links to a web address, and
    its own words hold a code span or more than :data:`BARE_WORDS` words."""
    if not _WEB_LINK.search(text):
        return False
    rest = own_words(text)
    words = [w for w in _CODE.sub(" ", rest).split() if re.search(r"[A-Za-z]", w)]
    return bool(_CODE.search(rest)) or len(words) > BARE_WORDS


ALL = [note for page in PAGES for note in footnotes(page.read_text(encoding="utf-8"), page.name)]


def test_the_pages_have_footnotes_to_check():
    assert len(ALL) > 40, f"only {len(ALL)} footnotes found: is the parser reading the pages?"
    assert sum(reports_a_source(n.text) for n in ALL) > 30


@pytest.mark.parametrize("note", ALL, ids=[f"{n.page}:{n.name}" for n in ALL])
def test_a_footnote_that_reports_a_source_quotes_it(note):
    if reports_a_source(note.text):
        assert quotations(note.text), (
            f"docs/{note.page}: footnote [^{note.name}] says what its source says but quotes "
            f"none of it; add the source's own words in quotation marks:\n{note.text}"
        )


@pytest.mark.parametrize(
    ("text", "reports"),
    [
        ("Mikolov et al., [Efficient Estimation](https://arxiv.org/abs/1301.3781) (2013).", False),
        ("The update rules of [Adam](https://x.org/a) and [AdamW](https://x.org/b).", False),
        ("[Tensor views](https://x.org/v) in the PyTorch documentation.", False),
        ("`reset_parameters` in [`sparse.py`](https://x.org/s).", True),  # names code: reports
        ("[#2159](https://x.org/i), 2017: the transpose is free, since BLAS supports it.", True),
        ("A sentence about the site with no link at all, however long it runs on.", False),
    ],
)
def test_which_footnotes_report_a_source(text, reports):
    assert reports_a_source(text) is reports


def test_what_counts_as_a_quotation():
    assert quotations('x: "the transpose is completely free", y') == [
        "the transpose is completely free"
    ]
    assert quotations("“Ops not listed below do not go through autocasting.”")
    assert quotations('"`self.weight = Parameter(_weight, requires_grad=not _freeze)`"')
    code = '"`fprintf(fo, "%lf ", x)` is quoted"'  # quote marks inside a code span are code
    assert quotations(code) == ['`fprintf(fo, "%lf ", x)` is quoted']
    assert not quotations('the word "lazy"')  # too short to check anything against


def test_the_parser_reads_continuations_and_stops():
    page = (
        'Body[^a].\n\n[^a]: [Src](https://x.org) says\n    "these words, quoted here".\n'
        "[^b]: Mikolov et al., [T](https://x.org) (2013).\n\nNext paragraph.\n"
        "```text\n[^c]: not a footnote\n```\n"
    )
    notes = footnotes(page, "p.md")
    assert [n.name for n in notes] == ["a", "b"]
    assert notes[0].text.endswith('"these words, quoted here".')
    assert quotations(notes[0].text) and not reports_a_source(notes[1].text)
