"""Terms chosen once: ``snippets/data/zh-terms.yml`` names the Chinese term of each English term,
its source and the variants ruled out (``avoid``). No Chinese page uses a ruled-out variant
outside code, and the list has an entry for every term of the glossary (``snippets/glossary.md``,
``*[term]: definition``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scripts import ROOT
from scripts.commands.translations import DOCS, ZH_SUFFIX
from tests.translations import text_outside_code
from tests.zh_pair import chinese, replace_once

TERMS_FILE = ROOT / "snippets" / "data" / "zh-terms.yml"
GLOSSARY = ROOT / "snippets" / "glossary.md"
#: The Chinese pages, when the tests are collected.
CHINESE_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob(f"*{ZH_SUFFIX}"))


def read_terms(path: Path = TERMS_FILE) -> list[dict]:
    """The entries of the term list: ``en``, ``zh``, ``source`` (strings), ``avoid`` (a list)."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def glossary_terms(path: Path = GLOSSARY) -> list[str]:
    """The terms the glossary defines: each ``*[term]:`` line's term."""
    return [
        line[2 : line.index("]:")]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("*[") and "]:" in line
    ]


def ruled_out(text: str, terms: list[dict]) -> list[str]:
    """``variant (use term): …context…`` for each ruled-out variant in the Chinese Markdown
    ``text`` outside code (:func:`tests.translations.text_outside_code`)."""
    found = []
    for run in text_outside_code(text).splitlines():
        for entry in terms:
            for variant in entry["avoid"]:
                if (at := run.find(variant)) >= 0:
                    context = run[max(0, at - 15) : at + len(variant) + 15]
                    found.append(f"{variant} (use {entry['zh']}): …{context}…")
    return found


def test_every_entry_names_its_term_its_source_and_what_it_rules_out():
    terms = read_terms()
    bad = [
        e
        for e in terms
        if not {"en", "zh", "source", "avoid"}
        <= set(e)
        <= {"en", "zh", "source", "avoid", "first_use"}
        or not all(isinstance(e[k], str) and e[k] for k in ("en", "zh", "source"))
        or not isinstance(e["avoid"], list)
    ]
    assert not bad, f"entries without en, zh, source and an avoid list (first_use optional): {bad}"
    glosses = [e for e in terms if "first_use" in e and not e["first_use"].startswith(e["zh"])]
    assert not glosses, f"a first use that does not start with its term: {glosses}"
    english = [e["en"] for e in terms]
    assert len(english) == len(set(english)), "an English term has two entries"


def test_no_variant_ruled_out_is_part_of_a_chosen_term():
    """Otherwise the chosen term itself would be rejected wherever it is written."""
    terms = read_terms()
    clashes = [
        f"{v} (avoided for {e['en']}) is in {other['zh']} ({other['en']})"
        for e in terms
        for v in e["avoid"]
        for other in terms
        if v in other["zh"]
    ]
    assert not clashes, "\n".join(clashes)


def test_the_term_list_covers_every_glossary_term():
    listed = {e["en"] for e in read_terms()}
    missing = [term for term in glossary_terms() if term not in listed]
    assert glossary_terms(), "no '*[term]:' line read from snippets/glossary.md"
    assert not missing, f"glossary terms with no entry in {TERMS_FILE.name}: {missing}"


def test_a_ruled_out_variant_is_found_in_prose_and_passed_in_code():
    terms = [{"en": "lookup table", "zh": "查找表", "source": "s", "avoid": ["查询表"]}]
    assert ruled_out(chinese(), terms) == []
    in_prose = replace_once(chinese(), "见[稀疏性一页]", "见查询\n表和[稀疏性一页]")
    assert ruled_out(in_prose, terms) == ["查询表 (use 查找表): …见查询表和稀疏性一页和文档。…"]
    in_heading = replace_once(chinese(), "## 它在哪里不同", "## 查询表在哪里不同")
    assert len(ruled_out(in_heading, terms)) == 1
    in_code = replace_once(chinese(), "# 这个 id", "# 查询表")
    in_span = replace_once(chinese(), "`[4, 3]`", "`查询表`")
    assert ruled_out(in_code, terms) == ruled_out(in_span, terms) == []


def test_the_glossary_reader_reads_every_term(tmp_path):
    path = tmp_path / "glossary.md"
    path.write_text("*[one-hot]: A vector.\n*[a [b]]: Nested.\nprose *[x] not\n", encoding="utf-8")
    assert glossary_terms(path) == ["one-hot", "a [b]"]


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_no_chinese_page_uses_a_variant_the_term_list_rules_out(page):
    found = ruled_out((DOCS / page).read_text(encoding="utf-8"), read_terms())
    assert not found, (
        f"docs/{page}: {len(found)} variants ruled out by "
        f"snippets/data/zh-terms.yml:\n" + "\n".join(found)
    )


def first_uses_missing(text: str, terms: list[dict]) -> list[str]:
    """For each entry with a ``first_use`` (the term with its English gloss, as the list asks for
    it at the term's first use on a page): ``first_use: …context…`` where the page's first use
    of the term, outside code, is not written that way."""
    prose = text_outside_code(text)
    found = []
    for entry in terms:
        gloss = entry.get("first_use")
        if not gloss or (at := prose.find(entry["zh"])) < 0:
            continue
        if not prose.startswith(gloss, at):
            found.append(f"{gloss}: …{prose[max(0, at - 15) : at + len(gloss) + 5]}…")
    return found


def test_a_first_use_without_its_gloss_is_found():
    terms = [
        {"en": "pooling", "zh": "汇聚", "source": "s", "avoid": [], "first_use": "汇聚（pooling）"}
    ]
    assert first_uses_missing("# 标题\n\n先汇聚（pooling）各行，再汇聚。\n", terms) == []
    (missing,) = first_uses_missing("# 标题\n\n先汇聚各行，再汇聚（pooling）。\n", terms)
    assert missing.startswith("汇聚（pooling）: …") and "先汇聚各行" in missing
    assert first_uses_missing("# 标题\n\n`汇聚` 不算。\n", terms) == []


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_each_term_the_list_glosses_is_glossed_at_its_first_use(page):
    found = first_uses_missing((DOCS / page).read_text(encoding="utf-8"), read_terms())
    assert not found, (
        f"docs/{page}: at its first use on a page, write the term as snippets/data/zh-terms.yml's "
        "first_use gives it:\n" + "\n".join(found)
    )
