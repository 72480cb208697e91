"""One voice across the Chinese pages: the furniture every article repeats says the same thing on
every page (the short answer's label, the titles of its last sections and of its checked notes),
and each tab label of the English pages has one Chinese form, so that Material's linked tabs
(``content.tabs.link``, which follow a tab by its label from page to page) stay in step on the
Chinese pages as they do on the English ones. The words are those of
``snippets/data/zh-terms.yml``'s page-furniture entries."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from scripts.commands.translations import DOCS, ZH_SUFFIX
from tests.markdown_model import headings
from tests.test_zh_terms import read_terms

#: The Chinese pages and their English pages, when the tests are collected.
PAIRS = sorted(
    (
        p.with_suffix("").with_suffix(".md").relative_to(DOCS).as_posix(),
        p.relative_to(DOCS).as_posix(),
    )
    for p in DOCS.rglob(f"*{ZH_SUFFIX}")
)
#: A tab's label: ``=== "label"`` at any indentation.
TAB = re.compile(r'^\s*=== "([^"]+)"', re.M)
#: A collapsed note's title: ``??? note "title"``.
NOTE = re.compile(r'^\s*\?\?\?\+? note "([^"]+)"', re.M)
#: The anchor in a heading's attribute list (``{ #anchor }``), read by tests/markdown_model.py.
ANCHOR = re.compile(r"#([\w-]+)")


def titled(text: str) -> list[tuple[str, str]]:
    """``(title, anchor)`` of each heading of the Markdown ``text`` (``""`` without an anchor)."""
    found = []
    for h in headings(text.splitlines()):
        m = ANCHOR.search(h.attrs)
        found.append((h.title, m[1] if m else ""))
    return found


def furniture() -> dict[str, str]:
    """The Chinese form of each piece of page furniture, read from the term list."""
    chosen = {e["en"].split(" (")[0]: e["zh"] for e in read_terms()}
    return {k: chosen[k] for k in ("Short answer.", "Where next", "Hands-on", "Checked:")}


def read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def body(text: str) -> str:
    """``text`` after its title line (the short answer is the paragraph that follows)."""
    return text[text.index("\n# ") + 1 :] if not text.startswith("# ") else text


def furniture_problems(english: str, chinese: str, words: dict[str, str]) -> list[str]:
    """Where the Chinese page ``chinese`` words a piece of furniture of ``english`` otherwise than
    ``words`` (English furniture -> its Chinese form)."""
    problems = []
    en_answer = re.search(r"^\*\*(Short answer\.)\*\*", english, re.M)
    if en_answer and not re.search(rf"^\*\*{words['Short answer.']}。\*\*", chinese, re.M):
        problems.append(f"the short answer's label is not **{words['Short answer.']}。**")
    en_titles = {a or t.lower().replace(" ", "-"): t for t, a in titled(english)}
    zh_titles = {a: t for t, a in titled(chinese) if a}
    for english_title in ("Where next", "Hands-on"):
        anchor = english_title.lower().replace(" ", "-")
        if en_titles.get(anchor) == english_title and zh_titles.get(anchor) != words[english_title]:
            problems.append(
                f"#{anchor} is titled {zh_titles.get(anchor)!r}, not {words[english_title]!r}"
            )
    checked = sum(t.startswith("Checked:") for t in NOTE.findall(english))
    zh_checked = sum(t.startswith(words["Checked:"]) for t in NOTE.findall(chinese))
    if checked != zh_checked:
        problems.append(
            f"{checked} notes titled 'Checked: …' in English, {zh_checked} titled "
            f"'{words['Checked:']}…' in Chinese"
        )
    return problems


@pytest.mark.parametrize(("english", "chinese"), PAIRS)
def test_the_page_furniture_has_one_chinese_form(english, chinese):
    problems = furniture_problems(read(english), read(chinese), furniture())
    assert not problems, f"docs/{chinese}: " + "; ".join(problems)


def test_the_furniture_rule_finds_another_wording():
    words = {
        "Short answer.": "简答",
        "Where next": "接下来读什么",
        "Hands-on": "动手练习",
        "Checked:": "已验证：",
    }
    english = '# T\n\n**Short answer.** Rows.\n\n??? note "Checked: rows"\n\n## Where next\n'
    good = '# 题\n\n**简答。**行。\n\n??? note "已验证：行"\n\n## 接下来读什么 { #where-next }\n'
    assert furniture_problems(english, good, words) == []
    bad = (
        good.replace("简答", "简短回答")
        .replace("已验证：", "检查：")
        .replace("接下来读什么", "下一步")
    )
    assert len(furniture_problems(english, bad, words)) == 3


def pronoun_headings(text: str) -> list[str]:
    """The headings of the Markdown ``text`` that hold 它 or 它们 ("it", "they").

    A heading stands alone (in the table of contents, in a search result, in a link that names
    it), so a translated "it" there points at nothing: the heading names its subject or drops it.
    """
    return [title for title, _ in titled(text) if "它" in title]


@pytest.mark.parametrize("chinese", [zh for _, zh in PAIRS])
def test_no_chinese_heading_says_it(chinese):
    found = pronoun_headings(read(chinese))
    assert not found, f"docs/{chinese}: a heading with 它 (name its subject): {found}"


def test_the_heading_rule_finds_it():
    text = "# `padding_idx` 做什么\n\n## 它不做什么 { #what-it-does-not-do }\n\n正文里的它可以。\n"
    assert pronoun_headings(text) == ["它不做什么"]
    assert pronoun_headings(text.replace("## 它不做什么", "## `padding_idx` 不做什么")) == []


def tab_labels(pairs: list[tuple[str, str]]) -> dict[str, dict[str, list[str]]]:
    """English tab label -> Chinese label -> the Chinese pages that use that pair. The tabs of a
    page and of its translation are paired in order (a current translation has the same blocks,
    so the same tab sets); a page whose counts differ pairs nothing and is reported as such."""
    labels: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for english, chinese in pairs:
        en, zh = TAB.findall(read(english)), TAB.findall(read(chinese))
        if len(en) != len(zh):
            labels[f"(tab count of {english})"][f"{len(en)} English, {len(zh)} Chinese"].append(
                chinese
            )
            continue
        for e, z in zip(en, zh, strict=True):
            labels[e][z].append(chinese)
    return labels


def test_each_tab_label_has_one_chinese_form():
    several = {e: dict(z) for e, z in tab_labels(PAIRS).items() if len(z) > 1 or e.startswith("(")}
    assert not several, (
        "linked tabs follow a label from page to page: give each English label one Chinese form "
        f"(English label -> Chinese forms -> pages): {several}"
    )
