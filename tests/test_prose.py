"""Sentences a learner can follow: limits on every page's prose, read by ``tests/prose.py``.

Per page: the short answer right under the title has at most 60 words, and no prose sentence
has more than 50 (list items included, tables aside). Site-wide: at most 2 % of the sentences
have more than 40 words. ``python -m tests.prose`` prints every page's numbers.
"""

from __future__ import annotations

import pytest

from tests.prose import PAGES, read_prose, words

#: The most words a short answer may have.
ANSWER_WORDS = 60
#: The most words one prose sentence may have.
SENTENCE_WORDS = 50
#: Sentences over :data:`LONG_WORDS` words: at most this share of the site's sentences.
LONG_WORDS, LONG_SHARE = 40, 0.02


def long_sentences(page: str, limit: int) -> list[str]:
    """The sentences of ``page`` with more than ``limit`` words, each with its count."""
    return [f"{words(s)} words: {s}" for s in read_prose(page).sentences if words(s) > limit]


@pytest.mark.parametrize("page", PAGES)
def test_the_short_answer_has_at_most_60_words(page):
    answer = read_prose(page).answer
    assert words(answer) <= ANSWER_WORDS, (
        f"docs/{page}: the short answer has {words(answer)} words (at most {ANSWER_WORDS}); "
        f"move its conditions into the section that proves them and link there:\n{answer}"
    )


@pytest.mark.parametrize("page", PAGES)
def test_no_sentence_has_more_than_50_words(page):
    found = long_sentences(page, SENTENCE_WORDS)
    assert not found, (
        f"docs/{page}: {len(found)} sentences over {SENTENCE_WORDS} words; "
        "split them:\n" + "\n".join(found)
    )


def test_at_most_2_percent_of_the_sites_sentences_have_more_than_40_words():
    counts = {
        page: (len(read_prose(page).sentences), len(long_sentences(page, LONG_WORDS)))
        for page in PAGES
    }
    total = sum(n for n, _ in counts.values())
    long = sum(k for _, k in counts.values())
    worst = sorted(counts, key=lambda page: -counts[page][1])[:5]
    assert long <= LONG_SHARE * total, (
        f"{long} of {total} sentences ({long / total:.1%}) have over {LONG_WORDS} words, more "
        f"than {LONG_SHARE:.0%}; most on: "
        + ", ".join(f"{page} ({counts[page][1]})" for page in worst)
    )


def test_the_reader_finds_answer_sentences_and_list_items_and_leaves_out_code_and_tables():
    text = """---
description: not prose
---

# Title

**Short answer.** One `nn.Embedding(3, 4)` call. Two sentences here.

A paragraph. Then a list:

- a list item. Counted.
- an item with a list:
    - inside it.

| a | table |
|---|---|
| not | prose |

```python
x = "Not prose either."
```

!!! warning "A title, not prose"
    Body of the admonition. It is prose.

??? note "Collapsed"
    Inside a collapsed note. Prose too.
"""
    prose = read_prose("probe.md", text)
    assert prose.answer == "Short answer. One code call. Two sentences here."
    assert prose.sentences == (
        "Short answer.",
        "One code call.",
        "Two sentences here.",
        "A paragraph.",
        "Then a list:",
        "a list item.",
        "Counted.",
        "an item with a list:",
        "inside it.",
        "Body of the admonition.",
        "It is prose.",
        "Inside a collapsed note.",
        "Prose too.",
    )
    assert words("A `x` - b, c.") == 4


def test_a_list_right_after_the_answer_belongs_to_it():
    prose = read_prose("probe.md", "# T\n\n**Short answer.** Three things:\n\n1. one\n2. two\n")
    assert words(prose.answer) == 6
