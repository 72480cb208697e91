"""``python -m scripts translations mark``: one command brings a Chinese section current after
its English section changed and the translator updated the Chinese text; no fingerprint is copied
by hand (``scripts/commands/translations.py``)."""

from __future__ import annotations

import pytest

from scripts.commands import translations

ENGLISH = "# Title\n\nOpening.\n\n## First { #first }\n\nOne.\n\n## Second { #second }\n\nTwo.\n"


def _pages(tmp_path, chinese: str):
    (tmp_path / "page.md").write_text(ENGLISH, encoding="utf-8")
    zh = tmp_path / "page.zh.md"
    zh.write_text(chinese, encoding="utf-8")
    return zh


def _state(tmp_path):
    [report] = translations.report(tmp_path)
    return report


def _current_chinese() -> str:
    fp = {s.anchor: translations.fingerprint(s) for s in translations.sections(ENGLISH)}
    return (
        f"# 标题\n<!-- en: {fp['']} -->\n\n开头。\n\n"
        f"## 第一 {{ #first }}\n<!-- en: {fp['first']} -->\n\n一。\n\n"
        f"## 第二 {{ #second }}\n<!-- en: {fp['second']} -->\n\n二。\n"
    )


def test_mark_makes_a_stale_section_current_and_touches_nothing_else(tmp_path, capsys):
    zh = _pages(tmp_path, _current_chinese())
    (tmp_path / "page.md").write_text(ENGLISH.replace("One.", "One, changed."), encoding="utf-8")
    assert _state(tmp_path).stale == ["first"]
    before = zh.read_text(encoding="utf-8").splitlines()

    assert translations.main(["mark", str(zh), "first"]) == 0

    assert _state(tmp_path).stale == [] and _state(tmp_path).current == ["", "first", "second"]
    after = zh.read_text(encoding="utf-8").splitlines()
    changed = [n for n, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [6], "only the section's own <!-- en: --> line changes"
    assert "#first: records" in capsys.readouterr().out


def test_mark_adds_the_line_a_section_lacks_and_names_the_title(tmp_path):
    chinese = _current_chinese()
    no_marks = "\n".join(ln for ln in chinese.splitlines() if not ln.startswith("<!-- en:"))
    zh = _pages(tmp_path, no_marks + "\n")
    assert _state(tmp_path).current == []
    assert translations.main(["mark", str(zh), translations.TITLE, "first", "#second"]) == 0
    assert zh.read_text(encoding="utf-8") == chinese


def test_mark_on_a_current_section_changes_nothing(tmp_path):
    zh = _pages(tmp_path, _current_chinese())
    assert translations.mark(zh, ["second"]) == [
        f"#second: already current ({translations.fingerprint(translations.sections(ENGLISH)[2])})"
    ]
    assert zh.read_text(encoding="utf-8") == _current_chinese()


@pytest.mark.parametrize(
    ("anchor", "message"),
    [("third", "no section #third"), ("second", "#second is not translated yet")],
)
def test_mark_refuses_what_it_cannot_mark_and_writes_nothing(tmp_path, capsys, anchor, message):
    chinese = _current_chinese().split("## 第二")[0]
    zh = _pages(tmp_path, chinese)
    assert translations.main(["mark", str(zh), "first", anchor]) == 1
    assert message in capsys.readouterr().err
    assert zh.read_text(encoding="utf-8") == chinese


def test_mark_help_says_to_translate_first(capsys):
    with pytest.raises(SystemExit):
        translations.main(["mark", "--help"])
    assert "ONLY after updating the Chinese text" in " ".join(capsys.readouterr().out.split())
