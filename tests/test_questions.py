"""The questions page (``docs/questions.md``): every question answered by code that runs.

Each entry of the page is a ``###`` heading holding the question as readers ask it, a first
paragraph of exactly two sentences that answers it, then links: the sections that prove the
answer (on this site) and, where one exists, the question's public source. This file holds the
page to that shape:

* every link to a page of this site names a section that exists (an ``{ #anchor }`` or a heading
  id as the ``toc`` extension makes it), and that section, its subsections included, holds a
  block the test suite executes: a bare ``python`` fence that is neither skipped nor marked
  ``cuda`` (``tests/cuda_marker.py`` skips those on a CPU), or a fence that includes a file of
  ``snippets/`` that ``tests/test_snippets.py`` runs. A section of prose, of output (``text``
  fences) or of skipped blocks proves nothing and fails;
* a link to a whole page (no anchor) stands for the page's title section: the page must hold
  such a block;
* each public source is on a forum or tracker where readers ask (Stack Overflow and the sites
  that copy it, Stack Exchange, the PyTorch, fast.ai and MXNet forums, Reddit, GitHub issues and
  pull requests), and its link text says what it is (a question, an answer, a thread, an issue, a
  pull request);
* in the built site, Material's search index holds each question as a section of its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import markdown
import pytest
from bs4 import BeautifulSoup

from scripts import ROOT
from scripts.checks.site import nav_pages
from scripts.hooks.markdown_blocks import CUDA_MARK
from tests.markdown_model import Fence, fences_of, heading_ids, headings
from tests.prose import paragraph_text, split_sentences
from tests.test_snippets import SNIPPETS

DOCS = ROOT / "docs"
PAGE = DOCS / "questions.md"
#: The fewest entries the page may hold (issue 51: "at least 35").
MIN_ENTRIES = 35
#: An inline link ``[text](target)``; the text may hold code spans, not brackets.
LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+)\)")
#: Where a public source may live: the forums and trackers where readers ask.
SOURCE_HOSTS = (
    "stackoverflow.com",
    "stackexchange.com",
    "discuss.pytorch.org",
    "forums.fast.ai",
    "discuss.mxnet.io",
    "www.reddit.com",
    "github.com",
    # Copies of Stack Overflow questions, found through them (the page says so).
    "newbedev.com",
    "whosebug.com",
    "wiki.gubat.org",
    "kiwix.lema.org",
    "example-a.com",
)
#: What a source's link text must call it: one of these words.
SOURCE_KINDS = ("question", "answer", "thread", "issue", "pull request")
#: The files ``tests/test_snippets.py`` runs, relative to the root, as pages include them.
RUN_SNIPPETS = {p.relative_to(ROOT).as_posix() for p in SNIPPETS}


@dataclass(frozen=True)
class Entry:
    """One question: its ``heading`` (as written), ``anchor`` (its id), 1-based ``line``, the
    ``answer`` (its first paragraph, Markdown) and every ``links`` as (text, target) pairs."""

    heading: str
    anchor: str
    line: int
    answer: str
    links: tuple[tuple[str, str], ...]


def sections_of(text: str) -> dict[str, tuple[int, int]]:
    """Each heading id of a page's Markdown ``text`` -> the 0-based lines ``(start, end)`` of its
    section: from the heading to the next heading of the same or a higher level (subsections
    included). The page title's id maps to the whole page. Raises ``ValueError`` when the
    headings found outside fences and the ``toc`` extension's ids disagree in number."""
    lines = text.splitlines()
    found, ids = headings(lines), heading_ids(text)
    if len(found) != len(ids):
        raise ValueError(f"{len(found)} headings but {len(ids)} toc ids")
    spans = {}
    for k, (heading, (_, anchor, _)) in enumerate(zip(found, ids, strict=True)):
        end = next((h.line - 1 for h in found[k + 1 :] if h.level <= heading.level), len(lines))
        spans[anchor] = (0 if heading.level == 1 else heading.line - 1, end)
    return spans


def runs(fence: Fence) -> bool:
    """Whether the suite executes ``fence`` on every machine: a bare ``python`` fence, neither
    skipped nor marked ``cuda``, or a fence whose every line includes a ``snippets/`` file that
    ``tests/test_snippets.py`` runs."""
    if fence.executed_by_codeblocks:
        marked = fence.before.startswith("<!--pytest.mark.skip") or CUDA_MARK.fullmatch(
            fence.before
        )
        return not marked
    paths = fence.snippet_paths
    return bool(paths) and all(path in RUN_SNIPPETS for path in paths)


def link_problems(target: str, docs: Path = DOCS) -> list[str]:
    """What is wrong with a link to this site's ``target`` (``page.md#anchor`` or ``page.md``,
    relative to ``docs``): a missing page or anchor, or a section (for a page link, the whole
    page) without an executed block. Empty when the link proves something."""
    page, _, anchor = target.partition("#")
    path = docs / page
    if not page.endswith(".md") or not path.is_file():
        return [f"{target}: no page docs/{page}"]
    text = path.read_text(encoding="utf-8")
    spans = sections_of(text)
    if anchor and anchor not in spans:
        return [f"{target}: docs/{page} has no section #{anchor}"]
    start, end = spans[anchor] if anchor else (0, len(text.splitlines()))
    executed = [f for f in fences_of(text.splitlines(), path) if start < f.line <= end and runs(f)]
    if not executed:
        where = f"section #{anchor}" if anchor else "page"
        return [f"{target}: the {where} holds no block the suite executes (prose only?)"]
    return []


def source_problems(text: str, target: str) -> list[str]:
    """What is wrong with a public source's link: a host that is no forum or tracker, or link
    text that does not say what the source is."""
    problems = []
    host = urlsplit(target).hostname or ""
    if not any(host == h or host.endswith("." + h) for h in SOURCE_HOSTS):
        problems.append(f"{target}: {host} is not a forum or tracker of SOURCE_HOSTS")
    if not any(kind in text.lower() for kind in SOURCE_KINDS):
        problems.append(f"{target}: the link text {text!r} does not say what the source is")
    return problems


def entries(text: str) -> list[Entry]:
    """The entries (``###`` sections) of the questions page's Markdown ``text``, in order."""
    lines = text.splitlines()
    heads = headings(lines)
    ids = {h.line: anchor for h, (_, anchor, _) in zip(heads, heading_ids(text), strict=True)}
    found = []
    for k, head in enumerate(heads):
        if head.level != 3:
            continue
        end = heads[k + 1].line - 1 if k + 1 < len(heads) else len(lines)
        body = "\n".join(lines[head.line : end]).strip()
        answer = body.split("\n\n", 1)[0]
        links = tuple((m["text"], m["target"]) for m in LINK.finditer(body))
        found.append(Entry(head.title, ids[head.line], head.line, answer, links))
    return found


def entry_problems(entry: Entry, docs: Path = DOCS) -> list[str]:
    """Everything wrong with one entry, each line naming it."""
    problems = []
    if not entry.heading.endswith("?"):
        problems.append("the heading is not a question")
    html = markdown.markdown(entry.answer)
    paragraph = BeautifulSoup(html, "html.parser").p
    sentences = split_sentences(paragraph_text(paragraph)) if paragraph else []
    if len(sentences) != 2:
        problems.append(f"the answer has {len(sentences)} sentences, not two: {sentences}")
    internal = [(t, u) for t, u in entry.links if not urlsplit(u).scheme]
    external = [(t, u) for t, u in entry.links if urlsplit(u).scheme]
    if not internal:
        problems.append("no link to the section that proves the answer")
    for _, target in internal:
        problems += link_problems(target, docs=docs)
    for text, target in external:
        problems += source_problems(text, target)
    return [f"docs/questions.md:{entry.line} ({entry.heading}): {p}" for p in problems]


def test_every_question_is_proved_by_a_section_that_runs_code():
    found = entries(PAGE.read_text(encoding="utf-8"))
    problems = [p for entry in found for p in entry_problems(entry)]
    assert not problems, "\n".join(problems)


def test_the_page_holds_at_least_35_distinct_questions():
    found = entries(PAGE.read_text(encoding="utf-8"))
    assert len(found) >= MIN_ENTRIES, f"{len(found)} entries, at least {MIN_ENTRIES} expected"
    headings_seen = [e.heading.lower() for e in found]
    assert len(set(headings_seen)) == len(headings_seen), "a question is asked twice"


def test_the_page_is_the_first_entry_under_reference():
    assert nav_pages("Reference")[0] == "questions.md"


# --- The checker itself, on a made-up site: each kind of broken entry is caught. ---

ARTICLE = """# An article

## Proven

```python
assert 1 + 1 == 2
```

## Prose only

Words, and nothing that runs.

```text
output, not code
```

## Skipped

<!--pytest.mark.skip(reason="shown, not run")-->
```python
assert False
```

## On a GPU

<!--pytest.mark.cuda-->
```python
import torch
assert torch.cuda.is_available()
```

## Parent

### Child

```python
assert True
```
"""


def _entry(link: str, answer: str = "It does. Here is why.") -> Entry:
    return entries(f"# Q\n\n## Topic\n\n### Does it?\n\n{answer}\n\n{link}\n")[0]


@pytest.fixture
def made_up_docs(tmp_path: Path) -> Path:
    (tmp_path / "article.md").write_text(ARTICLE, encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes\n\nProse only.\n\n## More\n\nStill prose.\n")
    return tmp_path


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        ("[Proof](article.md#proven)", None),
        ("[Proof](article.md#parent)", None),  # its subsection runs code
        ("[Proof](article.md#prose-only)", "holds no block the suite executes"),
        ("[Proof](article.md#skipped)", "holds no block the suite executes"),
        ("[Proof](article.md#on-a-gpu)", "holds no block the suite executes"),
        ("[Proof](article.md#no-such-section)", "has no section #no-such-section"),
        ("[Proof](missing.md#proven)", "no page docs/missing.md"),
        ("[Proof](article.md)", None),  # the whole page: it runs code
        ("[Proof](notes.md)", "the page holds no block the suite executes"),
        ("[Proof](article.md#proven), [all of it](article.md)", None),
        ("", "no link to the section"),
    ],
)
def test_the_checker_catches_each_kind_of_unproved_entry(made_up_docs, link, complaint):
    problems = entry_problems(_entry(link), docs=made_up_docs)
    if complaint is None:
        assert problems == []
    else:
        assert len(problems) == 1 and complaint in problems[0], problems


@pytest.mark.parametrize(
    ("answer", "count"),
    [
        ("`nn.Embedding` copies rows. `nn.Linear` multiplies.", 2),
        ("One sentence only.", 1),
        ("One. Two. Three.", 3),
    ],
)
def test_the_checker_counts_the_answers_sentences(made_up_docs, answer, count):
    problems = entry_problems(_entry("[Proof](article.md#proven)", answer), docs=made_up_docs)
    assert bool(problems) == (count != 2), problems


def test_the_checker_holds_sources_to_forums_and_names(made_up_docs):
    proof = "[Proof](article.md#proven)"
    good = f"{proof}. [An issue](https://github.com/pytorch/pytorch/issues/4068)."
    assert entry_problems(_entry(good), docs=made_up_docs) == []
    blog = f"{proof}. [A thread](https://example.org/a-blog-post)."
    assert "not a forum" in " ".join(entry_problems(_entry(blog), docs=made_up_docs))
    unnamed = f"{proof}. [Here](https://github.com/pytorch/pytorch/issues/4068)."
    assert "does not say what" in " ".join(entry_problems(_entry(unnamed), docs=made_up_docs))


def test_search_finds_each_question_by_its_own_section(site):
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    titles = {doc["location"]: doc["title"] for doc in index["docs"]}
    missing = []
    for entry in entries(PAGE.read_text(encoding="utf-8")):
        title = titles.get(f"questions/#{entry.anchor}")
        words = BeautifulSoup(markdown.markdown(entry.heading), "html.parser").get_text()
        if title is None or BeautifulSoup(title, "html.parser").get_text() != words:
            missing.append(f"{entry.anchor}: {title!r}")
    assert not missing, "questions not indexed as sections of their own:\n" + "\n".join(missing)
