"""The Chinese pages (``docs/<page>.zh.md``) keep what their English pages prove and say.

* **The same code, proven once.** Each current Chinese section's blocks are its English section's
  blocks, in order (:func:`tests.translations.code_difference`). pytest does not run the Chinese
  blocks (``--ignore-glob=docs/*.zh.md`` in pyproject.toml's ``addopts``): this comparison is what
  proves them, by proving them equal to blocks that run.
* **Meaning kept.** In each current section, the same heading level, every number, code span,
  formula, link target, claim id and footnote label of the English section, and the same figures
  with Chinese alt text (:func:`tests.translations.alignment_problems`).
* **Staleness shown, never failed.** A section is *current* when its marker names its English
  section's fingerprint and it stands in the English order. Editing an English section makes its
  Chinese section, and only that one, stale; a new English section is missing; ``python -m
  scripts translations`` lists both, and neither fails this suite (the checks above compare
  current sections only). The audits print the state of the real pages after their summary
  (``tests/conftest.py``).

Each check is run on a made-up pair (``tests/zh_pair.py``), faithful and then broken one way at a
time, so it is proven before any real page exists; then on every real pair found when the tests
are collected.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scripts import ROOT
from scripts.commands.translations import DOCS, ZH_SUFFIX, compare, main, report, translated_pages
from scripts.hooks.markdown_blocks import sections
from tests.translations import alignment_problems, code_difference, section_items
from tests.zh_pair import ENGLISH, chinese, replace_once

#: The real pairs: each English page with a Chinese page beside it, when the tests are collected.
PAIRS = [p.relative_to(DOCS).as_posix() for p in translated_pages()]


def read_pair(page: str) -> tuple[str, str]:
    """The English and the Chinese Markdown of ``docs/<page>``."""
    english = DOCS / page
    return (
        english.read_text(encoding="utf-8"),
        english.with_name(english.stem + ZH_SUFFIX).read_text(encoding="utf-8"),
    )


# --- The same code ------------------------------------------------------------------------------


def test_a_faithful_translation_has_the_english_blocks():
    zh = chinese()
    assert "# 这个 id" in zh and "# the id" in ENGLISH  # a translated comment passes
    assert code_difference(ENGLISH, zh) is None


#: One break of a Chinese page's code per case: (what is replaced, by what, what the report says).
CODE_BREAKS = {
    "a changed token": (
        "print(torch.tensor([2]).item())",
        "print(torch.tensor([3]).item())",
        "zh:27 vs en:26: #what-it-returns block 1 (python): token '3', not '2'",
    ),
    "a changed output": (
        "```text\n2\n```",
        "```text\n3\n```",
        "zh:32 vs en:31: #what-it-returns block 2 (text): '3', not '2'",
    ),
    "a changed formula": (
        "y = x W^{\\top}",
        "y = W x",
        "zh:36 vs en:35: #what-it-returns block 3 (math): 'y = W x', not 'y = x W^{\\\\top}'",
    ),
    "a lost expected-output comment": (
        "<!--pytest-codeblocks:expected-output-->\n",
        "",
        "zh:30 vs en:30: #what-it-returns block 2: the comment above is None, "
        "not '<!--pytest-codeblocks:expected-output-->'",
    ),
    "a changed skip reason": (
        'reason="shows a mistake"',
        'reason="展示一个错误"',
        "zh:61 vs en:59: #where-it-differs block 2: the comment above is "
        "'<!--pytest.mark.skip(reason=\"展示一个错误\")-->', not "
        "'<!--pytest.mark.skip(reason=\"shows a mistake\")-->'",
    ),
    "a changed include": (
        "rows.py:lookup",
        "rows.py:other",
        "zh:54 vs en:52: #where-it-differs block 1 (python): token "
        "'\"snippets/probe/rows.py:other\"', not "
        "'\"snippets/probe/rows.py:lookup\"'",
    ),
    "a changed info string": (
        "```text\n2",
        "```console\n2",
        "zh:31 vs en:30: #what-it-returns block 2: opens '' ```'console', not '' ```'text'",
    ),
    "a block taken out of its note": (
        "    ```python\n    emb(",
        "```python\n    emb(",
        "zh:41 vs en:40: #where-it-differs its blocks cannot be "
        "read: <markdown>:21: fence ```python is never closed",
    ),
    "a block left out": (
        "```math\ny = x W^{\\top}\n```\n",
        "",
        "zh:36 vs en:34: #what-it-returns block 3: a block the Chinese section lacks",
    ),
}


@pytest.mark.parametrize("case", CODE_BREAKS)
def test_the_code_check_finds_the_first_difference(case):
    old, new, said = CODE_BREAKS[case]
    assert code_difference(ENGLISH, replace_once(chinese(), old, new)) == said


def test_a_block_more_is_named_with_its_line():
    extra = chinese() + "\n```python\nx = 1\n```\n"
    assert code_difference(ENGLISH, extra) == (
        "zh:73 vs en:68: #a-smaller-part block 1: a block the English section lacks"
    )


def test_an_include_outside_a_block_counts_too():
    english = ENGLISH + '\n--8<-- "snippets/probe/notes.md"\n'
    zh = chinese(english)
    assert code_difference(english, zh + '\n--8<-- "snippets/probe/notes.md"\n') is None
    assert code_difference(english, zh).endswith("#a-smaller-part 0 snippet includes, not 1")


def test_an_english_edit_fails_no_code_or_alignment_check():
    """An edited block, a new section: the Chinese sections they touch are stale or missing,
    reported by ``python -m scripts translations``; the checks compare the current ones."""
    edited = replace_once(ENGLISH, "print(torch.tensor([2]).item())", "print(7)")
    new_section = "## New\n\nIt has 9 rows.\n\n```python\nx = 9\n```\n\n"
    edited = replace_once(edited, "### A smaller part", new_section + "### A smaller part")
    state = compare(edited, chinese(ENGLISH))
    assert state.stale == ["what-it-returns"] and state.missing == ["new"]
    assert code_difference(edited, chinese(ENGLISH)) is None
    assert alignment_problems(edited, chinese(ENGLISH)) == []


@pytest.mark.parametrize("page", PAIRS)
def test_the_chinese_blocks_are_the_english_blocks(page):
    english, chinese_text = read_pair(page)
    found = code_difference(english, chinese_text, f"docs/{page}", f"docs/{page[:-3]}{ZH_SUFFIX}")
    assert found is None, (
        f"docs/{page[:-3]}{ZH_SUFFIX}: its blocks must be the English blocks "
        f"(comments may be translated): {found}"
    )


def test_pytest_collects_no_chinese_page(tmp_path):
    """The Chinese blocks run once, as the English ones: pytest, with this repository's settings,
    collects the English page's block and skips the Chinese page beside it."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    for name in ("probe.md", f"probe{ZH_SUFFIX}"):
        (tmp_path / "docs" / name).write_text("# T\n\n```python\nx = 1\n```\n", encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            "docs",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "docs/probe.md::" in run.stdout, run.stdout + run.stderr
    assert ZH_SUFFIX not in run.stdout, run.stdout


def test_every_chinese_page_is_proven_by_the_code_check():
    """What pytest does not run, the code check compares: every Chinese page has its English page
    and stands among the pages the check runs on."""
    chinese_pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob(f"*{ZH_SUFFIX}"))
    assert [f"{page[:-3]}{ZH_SUFFIX}" for page in PAIRS] == chinese_pages
    orphans = [p for p in PAIRS if not (DOCS / p).exists()]
    assert not orphans, f"Chinese pages without an English page: {orphans}"


# --- The meaning --------------------------------------------------------------------------------


def test_a_faithful_translation_keeps_every_item():
    assert alignment_problems(ENGLISH, chinese()) == []


#: One break of a Chinese page's prose per case: (what is replaced, by what, the one problem).
ALIGNMENT_BREAKS = {
    "a number": ("有 0.5 %", "有一半", "#what-it-returns: missing number '0.5'"),
    "a number with separators": ("10,000 次", "一万次", "#what-it-returns: missing number '10000'"),
    "a number in an exponent": (
        "超过 1e-3",
        "超过千分之一",
        "#what-it-returns: missing number '1e-3'",
    ),
    "a code span": (
        "`nn.Embedding(5, 3)` 存有",
        "nn.Embedding 存有",
        "(title): missing code 'nn.Embedding(5, 3)'",
    ),
    "an inline formula": (
        "`#!math y = W_{i,:}`",
        "y 等于 W 的第 i 行",
        "#what-it-returns: missing formula '#!math y = W_{i,:}'",
    ),
    "a link target": (
        "(sparsity.md#coo)",
        "(sparsity.md)",
        "#what-it-returns: missing link 'sparsity.md#coo'",
    ),
    "a claim id": (
        "都成立。\n{ #claim-probe-row }",
        "都成立。",
        "#what-it-returns: missing claim 'claim-probe-row'",
    ),
    "a footnote label": ("1e-3。[^init]", "1e-3。", "#what-it-returns: missing footnote 'init'"),
    "a number in a list item": ("含 3 个 id", "含三个 id", "#where-it-differs: missing number '3'"),
    "a figure's path": (
        "rows-dark.svg#only-dark",
        "rows-light.svg#only-dark",
        "(title): figures ['figures/probe/rows-light.svg#only-light', "
        "'figures/probe/rows-light.svg#only-dark'], not "
        "['figures/probe/rows-light.svg#only-light', "
        "'figures/probe/rows-dark.svg#only-dark']",
    ),
    "a figure's alt text": (
        "![五行，每行三个数。](figures/probe/rows-dark",
        "![Five rows of three numbers.](figures/probe/rows-dark",
        "(title): the alt text of figures/probe/rows-dark.svg#only-dark is not "
        "Chinese: 'Five rows of three numbers.'",
    ),
}


@pytest.mark.parametrize("case", ALIGNMENT_BREAKS)
def test_the_alignment_check_reports_each_missing_item(case):
    old, new, said = ALIGNMENT_BREAKS[case]
    assert alignment_problems(ENGLISH, replace_once(chinese(), old, new)) == [said]


def test_a_number_in_a_code_span_counts_once_as_the_span():
    """``nn.Embedding(5, 3)`` is one item, a code span; the 5 and the 3 of the prose are numbers
    of their own, which a translation keeps in its prose."""
    broken = replace_once(chinese(), "存有 5 行，每行 3 个数", "存有五行，每行三个数")
    assert alignment_problems(ENGLISH, broken) == [
        "(title): missing number '5'",
        "(title): missing number '3'",
    ]


def test_a_number_inside_a_word_is_no_number_and_chinese_beside_digits_is_no_letter():
    found = section_items(
        "# T\n\nfloat32 on an H200, torch 2.11.0+cu130, 5行, 1,000 rows, 2 %, 87–95.\n"
    ).found["number"]
    assert found == ["2.11.0", "5", "1000", "2", "87", "95"]


def test_a_level_that_differs_is_reported_and_a_moved_section_is_stale():
    zh = chinese()
    level = replace_once(zh, "### 更小的部分 {", "## 更小的部分 {")
    assert alignment_problems(ENGLISH, level) == [
        "#a-smaller-part: a level-2 heading, where the English page has level 3"
    ]
    start, end = zh.index("## 它在哪里不同"), zh.index("### 更小的部分")
    moved = (
        zh[: zh.index("## 它返回什么")]
        + zh[start:end]
        + zh[zh.index("## 它返回什么") : start]
        + zh[end:]
    )
    state = compare(ENGLISH, moved)
    assert state.stale == ["where-it-differs"] and state.missing == []
    renamed = replace_once(zh, "{ #where-it-differs }", "{ #where-it-is-different }")
    state = compare(ENGLISH, renamed)
    assert state.missing == ["where-it-differs"] and state.extra == ["where-it-is-different"]
    assert alignment_problems(ENGLISH, moved) == alignment_problems(ENGLISH, renamed) == []


@pytest.mark.parametrize("page", PAIRS)
def test_each_chinese_section_keeps_what_its_english_section_says(page):
    english, chinese_text = read_pair(page)
    found = alignment_problems(english, chinese_text)
    assert not found, (
        f"docs/{page[:-3]}{ZH_SUFFIX}: {len(found)} items of the English page "
        "are missing (section: what):\n" + "\n".join(found)
    )


# --- Staleness ----------------------------------------------------------------------------------


def test_editing_one_english_sentence_makes_exactly_its_section_stale(tmp_path, capsys):
    edited = replace_once(ENGLISH, "Inside the note, 7 rows.", "Inside the note, 8 rows.")
    assert compare(ENGLISH, chinese()).stale == []
    state = compare(edited, chinese(), "probe.md")
    assert state.stale == ["where-it-differs"]
    assert state.current == ["", "what-it-returns", "a-smaller-part"]
    assert state.missing == [] and state.extra == []

    (tmp_path / "probe.md").write_text(edited, encoding="utf-8")
    (tmp_path / f"probe{ZH_SUFFIX}").write_text(chinese(), encoding="utf-8")
    assert main(["--docs", str(tmp_path)]) == 0  # stale is reported, not failed
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "probe.md: 3 of 4 sections current, 1 stale, 0 missing",
        "  stale: #where-it-differs",
        "1 translated pages; 1 sections stale or missing",
    ]
    assert main(["--docs", str(tmp_path), "--strict"]) == 1


def test_a_trailing_space_changes_no_fingerprint_and_a_missing_section_is_listed():
    assert compare(ENGLISH.replace("7 rows.", "7 rows.  "), chinese()).stale == []
    cut = chinese()[: chinese().index("### 更小的部分")]
    state = compare(ENGLISH, cut)
    assert state.missing == ["a-smaller-part"] and state.stale == []


@pytest.mark.audit
def test_the_audits_account_for_every_section_of_every_translated_page():
    """The state of every real Chinese page never fails the suite: after an audit run
    (``python -m pytest -m audit``), ``tests/conftest.py`` prints it, as ``python -m
    scripts translations`` does. This audit checks only that the report accounts for every
    English section of every translated page, once."""
    for state in report():
        english = (DOCS / state.page).read_text(encoding="utf-8")
        anchors = [s.anchor for s in sections(english)]
        assert sorted(state.current + state.stale + state.missing) == sorted(anchors), state.page
