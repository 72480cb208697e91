"""Chinese sentences a learner can follow: limits on every Chinese page's prose, read by
:func:`scripts.commands.translations.zh_units`.

The prose is the rendered text: code blocks, HTML comments, link targets, markup, headings, the
titles of admonitions and tabs, images and footnote definitions left out; a paragraph, a list
item and a table cell are units of their own; a code span counts as its text. A sentence ends
at 。！？；. A character is one character of that text, spaces included.

Per page: the short answer right under the title has at most 220 characters (room for full
sentences: the English answers carry 337 to 404), no sentence more than 100, and at most 2 % of
the sentences more than 80. The share counts the sentences of 81 to 100
characters, since one over 100 fails the test before it: one long sentence fails one test.
``python -m scripts translations --stats`` prints every Chinese page's numbers.

(Measured before choosing the plain split: pySBD's Chinese rules, the one offline segmenter the
suite already pins, keep a sentence ending in ； whole, and cut a closing quotation mark ” off its
sentence to open the next one; no other maintained segmenter splits at ；.)
"""

from __future__ import annotations

import pytest

from scripts.commands.translations import DOCS, ZH_SUFFIX, main, zh_sentences, zh_stats, zh_units
from tests.zh_pair import chinese, replace_once

#: The most characters a short answer may have.
ANSWER_CHARS = 220
#: The most characters one sentence may have.
SENTENCE_CHARS = 100
#: Sentences over :data:`LONG_CHARS` characters: at most this share of a page's sentences.
LONG_CHARS, LONG_SHARE = 80, 0.02
#: The Chinese pages, when the tests are collected.
CHINESE_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob(f"*{ZH_SUFFIX}"))


def read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def long_sentences(text: str, low: int, high: int | None = None) -> list[str]:
    """The sentences of a Chinese page's Markdown ``text`` with more than ``low`` characters (and
    at most ``high``), each with its count."""
    return [
        f"{len(s)} characters: {s}"
        for s in zh_units(text).sentences
        if len(s) > low and (high is None or len(s) <= high)
    ]


def answer_problem(text: str) -> str | None:
    answer = zh_units(text).answer
    if len(answer) <= ANSWER_CHARS:
        return None
    return (
        f"the short answer has {len(answer)} characters (at most {ANSWER_CHARS}); move its "
        f"conditions into the section that proves them and link there:\n{answer}"
    )


def share_problem(text: str) -> str | None:
    total = len(zh_units(text).sentences)
    found = long_sentences(text, LONG_CHARS, SENTENCE_CHARS)
    if len(found) <= LONG_SHARE * total:
        return None
    return (
        f"{len(found)} of {total} sentences ({len(found) / total:.1%}) have {LONG_CHARS + 1} "
        f"to {SENTENCE_CHARS} characters, more than {LONG_SHARE:.0%}; split some:\n"
        + "\n".join(found)
    )


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_the_chinese_short_answer_has_at_most_220_characters(page):
    problem = answer_problem(read(page))
    assert problem is None, f"docs/{page}: {problem}"


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_no_chinese_sentence_has_more_than_100_characters(page):
    found = long_sentences(read(page), SENTENCE_CHARS)
    assert not found, (
        f"docs/{page}: {len(found)} sentences over {SENTENCE_CHARS} characters; "
        "split them:\n" + "\n".join(found)
    )


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_at_most_2_percent_of_a_chinese_pages_sentences_have_more_than_80_characters(page):
    problem = share_problem(read(page))
    assert problem is None, f"docs/{page}: {problem}"


def test_the_reader_splits_at_the_four_stops_and_keeps_closing_marks():
    assert zh_sentences("一个句子。另一个！问吗？分句；“引号里。”最后") == [
        "一个句子。",
        "另一个！",
        "问吗？",
        "分句；",
        "“引号里。”",
        "最后",
    ]
    assert zh_sentences("。；") == []


def test_the_reader_measures_rendered_text_and_gives_lists_and_cells_units_of_their_own():
    prose = zh_units(chinese())
    assert prose.answer == (
        "简短回答。 nn.Embedding(5, 3) 存有 5 行，每行 3 个数。调用它返回行（原因）。"
    )
    assert prose.units == (
        prose.answer,
        "torch.manual_seed(0) 下的表。",
        "查找 id 2 返回第 2 行；10,000 次抽取中有 0.5 % 超过 1e-3。对每个 id，规则 "
        "y = W_{i,:} 都成立。",
        "见稀疏性一页和文档。",
        "一个列表项，含 3 个 id。",
        "另一项。",
        "id",
        "行",
        "4",
        "[4, 3]",
        "注释里有 7 行。",
        "这里没有更多内容。",
    )
    assert "行" in prose.sentences and "4" not in prose.sentences  # a number alone: no sentence


def test_a_list_right_after_the_answer_belongs_to_it():
    prose = zh_units("# 标题\n\n三件事：\n\n1. 一\n2. 二\n\n后文。\n")
    assert prose.answer == "三件事：一二"


def test_one_long_sentence_fails_one_test_and_a_long_answer_another():
    long_sentence = "这是一个很长的句子，" * 11 + "到此为止。"  # 115 characters
    assert len(long_sentence) == 115
    broken = replace_once(chinese(), "这里没有更多内容。", long_sentence)
    assert len(long_sentences(broken, SENTENCE_CHARS)) == 1
    assert share_problem(broken) is None and answer_problem(broken) is None

    ninety = "这是一个较长的句子，" * 8 + "差不多就到这里了吧。"
    assert len(ninety) == 90
    many = replace_once(chinese(), "这里没有更多内容。", ninety)
    assert "1 of 13 sentences (7.7%) have 81 to 100 characters" in share_problem(many)
    assert not long_sentences(many, SENTENCE_CHARS) and answer_problem(many) is None

    wordy = replace_once(chinese(), "调用它返回行", "它很短。" * 45 + "调用它返回行")
    assert "the short answer has 231 characters" in answer_problem(wordy)
    assert not long_sentences(wordy, SENTENCE_CHARS) and share_problem(wordy) is None


def test_a_page_without_a_paragraph_under_its_title_is_refused():
    with pytest.raises(ValueError, match="no '# title' followed by a paragraph"):
        zh_units("# 标题\n\n- 一个列表\n")


def test_the_numbers_of_a_page_and_the_stats_command(tmp_path, capsys):
    text = "# 标题\n\n一二三。四五；\n\n后面。\n\n- 六七八九。\n- " + "长" * 90 + "。\n"
    assert zh_stats(text) == {
        "sentences": 5,
        "mean": (4 + 3 + 3 + 5 + 91) / 5,
        "over_80": 20.0,
        "over_100": 0.0,
        "longest": 91,
        "answer": 7,
    }
    (tmp_path / f"probe{ZH_SUFFIX}").write_text(text, encoding="utf-8")
    assert main(["--stats", "--docs", str(tmp_path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[1].split() == ["probe.zh.md", "5", "21.2", "20.0", "0.0", "91", "7"]
