"""The Chinese edition's build steps (scripts/hooks/zh.py): staleness notes, glossary tooltips in
Chinese text, the Chinese facts line, and the two-language site (one build, /zh/, one search
index per language, pages without a Chinese file marked English)."""

from __future__ import annotations

import json
import re

import markdown

from scripts import ROOT
from scripts.commands.translations import HAN
from scripts.hooks import glossary, zh
from scripts.hooks.markdown_blocks import sections
from scripts.hooks.page_facts import ORDER, facts_line
from scripts.hooks.page_text import words
from scripts.hooks.zh import fingerprint

#: The Chinese partial, whose macros write the notes.
ZH_WORDS = words("zh")

#: Where the site is published (mkdocs.yml's site_url): the sitemaps' addresses start with it.
SITE_URL = "https://embedding-executed.github.io/"

ENGLISH = """\
# Rows

An embedding is a table of rows.

## Lookup

`weight[ids]` returns 3 rows.

## Gradient

The gradient is sparse.

### Detail

It has 2 rows.
"""

ZH_BODY = [
    "行",
    "嵌入是一张由行组成的表。",
    "查找",
    "`weight[ids]` 返回 3 行。",
    "梯度",
    "梯度是稀疏的。",
    "细节",
    "它有 2 行。",
]


def chinese_for(english: str, *, leave_out: str | None = None) -> str:
    """A Chinese page whose markers record the fingerprints of ``english``'s sections now."""
    fp = {s.anchor: fingerprint(s) for s in sections(english)}
    parts = [f"# {ZH_BODY[0]}\n<!-- en: {fp['']} -->\n\n{ZH_BODY[1]}\n"]
    for (anchor, level), title, body in zip(
        [("lookup", 2), ("gradient", 2), ("detail", 3)], ZH_BODY[2::2], ZH_BODY[3::2], strict=True
    ):
        if anchor == leave_out:
            continue
        parts.append(
            f"{'#' * level} {title} {{ #{anchor} }}\n<!-- en: {fp[anchor]} -->\n\n{body}\n"
        )
    return "\n".join(parts)


def notes(text: str) -> list[tuple[str, str]]:
    """(kind, href) of each note in ``text``, in order."""
    return re.findall(
        r'!!! warning "(英文原文已更新|本节尚未翻译)"\n    [^\n]*?href="([^"]*)"', text
    )


def test_current_translation_shows_no_note():
    chinese = chinese_for(ENGLISH)
    assert zh.stale_notes(ENGLISH, chinese, "../../rows/", ZH_WORDS) == chinese


def test_one_edited_english_sentence_marks_exactly_its_section():
    chinese = chinese_for(ENGLISH)
    edited = ENGLISH.replace("The gradient is sparse.", "The gradient is a sparse tensor.")
    out = zh.stale_notes(edited, chinese, "../../rows/", ZH_WORDS)
    assert notes(out) == [("英文原文已更新", "../../rows/#gradient")]
    # The note sits in the section it is about: after its marker, before its text.
    gradient = out.index("## 梯度")
    assert gradient < out.index("英文原文已更新") < out.index("梯度是稀疏的。")
    assert out.index("梯度是稀疏的。") < out.index("### 细节")


def test_edited_title_section_links_the_page_itself():
    out = zh.stale_notes(
        ENGLISH.replace("table of rows", "table of vectors"),
        chinese_for(ENGLISH),
        "../../rows/",
        ZH_WORDS,
    )
    assert notes(out) == [("英文原文已更新", "../../rows/")]
    assert out.index("英文原文已更新") < out.index("嵌入是一张")


def test_missing_section_gets_a_note_where_it_belongs():
    out = zh.stale_notes(
        ENGLISH, chinese_for(ENGLISH, leave_out="gradient"), "../../rows/", ZH_WORDS
    )
    assert notes(out) == [("本节尚未翻译", "../../rows/#gradient")]
    assert out.index("返回 3 行") < out.index("本节尚未翻译") < out.index("### 细节")
    assert "Gradient</a>" in out


def test_notes_render_as_warnings():
    out = zh.stale_notes(
        ENGLISH.replace("2 rows", "two rows"), chinese_for(ENGLISH), "x/", ZH_WORDS
    )
    rendered = markdown.markdown(out, extensions=["admonition", "attr_list"])
    assert rendered.count('<div class="admonition warning">') == 1
    assert '<a href="x/#detail" hreflang="en">当前的英文原文</a>' in rendered


# -- glossary tooltips in Chinese text -----------------------------------------------------------

TERMS = {
    "查找表": "按 id 取行的表。",
    "稀疏梯度": "只有被查找的行非零的梯度。",
    "COO": "坐标格式。",
    "padding_idx": "不更新的一行。",
}


def test_python_markdown_abbr_misses_terms_inside_chinese_text():
    """Why the build marks Chinese terms itself: abbr's ``\\b`` needs a non-word character next
    to the term, and Han characters are word characters."""
    text = "嵌入层是一张查找表。\n\n查找表\n\n*[查找表]: 按 id 取行的表。"
    html = markdown.markdown(text, extensions=["abbr"])
    assert html.count("<abbr") == 1  # only the paragraph holding the term alone
    assert "一张查找表" in html


def test_text_terms_wrapped_once_inside_chinese_text():
    html = (
        "<h2>查找表</h2><p>嵌入层是一张查找表，它的稀疏梯度是 COO 张量。</p>"
        "<p>再说查找表。</p><pre><code>查找表</code></pre><p><a href='x'>稀疏梯度</a></p>"
    )
    out = glossary.wrap_text_terms(html, TERMS)
    assert out.count("<abbr") == 3
    assert '<p>嵌入层是一张<abbr title="按 id 取行的表。">查找表</abbr>，' in out
    assert '<abbr title="只有被查找的行非零的梯度。">稀疏梯度</abbr>' in out
    assert "<h2>查找表</h2>" in out and "<p>再说查找表。</p>" in out  # heading, second use
    assert "<pre><code>查找表</code></pre>" in out and "<a href='x'>稀疏梯度</a>" in out


def test_no_tooltip_inside_a_code_blocks_title():
    """A code block's title (``<span class="filename">``) is read as plain text by the one HTML
    pass (its block would lose its line count otherwise); the term's first use is the one after."""
    html = (
        '<div class="highlight"><span class="filename">a/查找表.py — 稀疏梯度</span><pre>'
        "<code>x</code></pre></div><p>查找表<span>稀疏梯度</span></p>"
    )
    out = glossary.wrap_text_terms(html, TERMS)
    assert '<span class="filename">a/查找表.py — 稀疏梯度</span>' in out
    assert out.count("<abbr") == 2 and "<span><abbr" in out


def test_chinese_glossary_page_gives_terms_and_definitions():
    page = (
        "# 术语表\n\n说明。\n\n袋（bag）\n:   一组 id，由 `nn.EmbeddingBag` 归约为一行。\n"
        "    [稀疏性](sparsity.md#x)\n\nCOO\n:   坐标格式（coordinate format）：稀疏张量存为\n"
        "    它的索引。\n    [稀疏性](sparsity.md#y)\n"
    )
    assert glossary.zh_glossary(page) == {
        "袋": "一组 id，由 nn.EmbeddingBag 归约为一行。",
        "COO": "坐标格式（coordinate format）：稀疏张量存为它的索引。",
    }


#: The facts of an article as the build steps put them on the page (page.meta["facts"]).
ARTICLE_FACTS = {
    "download": {"what": "article", "href": "../../a/a.ipynb", "name": "a.ipynb"},
    "matrix": {
        "checks": 33,
        "releases": ["2.15.0", "2.14.1", "2.13.0"],
        "paths": {"count": 5, "machines": 1},
        "paths_href": "../claims/#p",
        "cuda": None,
        "details_id": "d",
        "differences": [
            {
                "kind": "not run",
                "count": 3,
                "run": {"kind": "releases", "names": ["2.14.1", "2.13.0"]},
            }
        ],
    },
}


def text(html: str) -> str:
    return re.sub("<[^>]+>", "", html)


def test_facts_line_in_both_languages_from_the_same_data():
    """One set of data, two partials: the same links in the same places, no English phrase left
    in the Chinese line."""
    english, chinese = facts_line(ARTICLE_FACTS, "en"), facts_line(ARTICLE_FACTS, "zh")
    assert text(english) == (
        "Run it yourself: a.ipynb (this article as a notebook) · Verified: 33 checks on torch "
        "2.15.0, 2.14.1 and 2.13.0 and 5 CPU paths of 1 machine; 3 not yet run on 2.14.1 and "
        "2.13.0"
    )
    assert text(chinese) == (
        "自己运行：a.ipynb（本文的笔记本） · 已验证："
        "33 项检查，torch 2.15.0、2.14.1 和 2.13.0，"
        "以及 1 台机器上的 5 条 CPU 路径；3 项尚未在 "
        "2.14.1 和 2.13.0 上运行"
    )
    assert re.findall(r'href="([^"]*)"', chinese) == re.findall(r'href="([^"]*)"', english)
    zipped = {
        **ARTICLE_FACTS,
        "download": {"what": "article with files", "href": "a.zip", "name": "a.zip"},
    }
    assert text(facts_line(zipped, "zh")).startswith(
        "自己运行：a.zip（本文的笔记本，含它读取的文件） · 已验证："
    )
    assert facts_line({}, "zh") == ""


def test_facts_line_in_chinese_with_machines_and_gpus():
    """Every kind of difference the torch matrix reports, in Chinese: CPU paths counted over
    machines, CUDA checks on a GPU, failures on a release, a CPU path and a GPU, checks not yet
    run on CPU paths or on a GPU; no English phrase is left, and the English line says each."""
    matrix = {
        "checks": 32,
        "releases": ["2.15.0", "2.14.1", "2.13.0"],
        "paths": {"count": 7, "machines": 1},
        "paths_href": "../claims/#p",
        "cuda": {"checks": 3, "releases": ["2.11.0+cu130"], "gpus": 1},
        "details_id": "d",
        "differences": [
            {"kind": "differs", "count": 1, "run": {"kind": "releases", "names": ["2.13.0"]}},
            {"kind": "differs", "count": 2, "run": {"kind": "cpu_path", "key": "x86/avx2"}},
            {"kind": "paths not run", "count": 12},
            {
                "kind": "differs",
                "count": 1,
                "run": {"kind": "gpu", "gpu": "H200", "torch": "2.11.0"},
            },
            {"kind": "not run on a GPU", "count": 2},
        ],
    }
    assert text(facts_line({"matrix": matrix}, "zh")) == (
        "已验证：32 项检查，torch 2.15.0、2.14.1 和 2.13.0，"
        "以及 1 台机器上的 7 条 CPU 路径；"
        "3 项 CUDA 检查，torch 2.11.0+cu130，1 块 GPU；1 项在 2.13.0 上不同；"
        "2 项在 CPU 路径 x86/avx2 上不同；尚未在 12 条 CPU 路径上运行；"
        "1 项在 GPU H200 (torch 2.11.0) 上不同；2 项尚未在 GPU 上运行"
    )
    assert text(facts_line({"matrix": matrix}, "en")) == (
        "Verified: 32 checks on torch 2.15.0, 2.14.1 and 2.13.0 and 7 CPU paths of 1 machine; "
        "3 CUDA checks on torch 2.11.0+cu130 and 1 GPU; 1 differs on 2.13.0; 2 differ on CPU "
        "path x86/avx2; not yet run on 12 CPU paths; 1 differs on GPU H200 (torch 2.11.0); 2 not "
        "yet run on a GPU"
    )


#: A page's list at its end, as matrix_notes.page_matrix gives it: every kind of item.
DETAILS = {
    "id": "torch-matrix-details",
    "pinned": "2.15.0",
    "dates": ["2026-11-25", "2026-11-27"],
    "items": [
        {
            "kind": "differs",
            "run": {"kind": "releases", "names": ["2.14.1", "2.13.0"]},
            "check": {"label": {"kind": "block", "name": 12}, "section": "梯度", "url": "#grad"},
            "failure": {"kind": "prints", "printed": "tensor(1.)", "shown": "tensor(2.)"},
        },
        {
            "kind": "differs",
            "run": {"kind": "cpu_path", "key": "x86_64/a/avx2"},
            "check": {
                "label": {"kind": "snippet", "name": "snippets/a.py"},
                "section": None,
                "url": None,
            },
            "failure": {"kind": "fails", "message": "AssertionError: 'x' < 1"},
        },
        {
            "kind": "not run",
            "run": {"kind": "releases", "names": ["2.13.0"]},
            "checks": [
                {
                    "label": {"kind": "property test", "name": "test_p"},
                    "section": None,
                    "url": None,
                },
                {"label": {"kind": "notebook", "name": "n.ipynb"}, "section": None, "url": None},
            ],
        },
        {
            "kind": "not run on a GPU",
            "checks": [{"label": {"kind": "test", "name": "test_t"}, "section": None, "url": None}],
        },
    ],
}


def test_the_torch_matrix_list_and_block_notes_in_both_languages():
    """The list at a page's end and the note after a failing block, from the same data in each
    partial: the same links and code, every item said, no English sentence on a Chinese page;
    text escaped as the rest of the build escapes it."""
    english, chinese = (str(words(lang).details(DETAILS)) for lang in ("en", "zh"))
    assert english.count("<li>") == chinese.count("<li>") == 4
    assert re.findall(r'href="([^"]*)"', chinese) == re.findall(r'href="([^"]*)"', english)
    assert re.findall(r"<code>.*?</code>", chinese) == re.findall(r"<code>.*?</code>", english)
    assert "<code>AssertionError: &#x27;x&#x27; &lt; 1</code>" in english
    assert "On PyTorch 2.14.1 and 2.13.0, block at line 12 in <a" in english
    assert "在 PyTorch 2.14.1 和 2.13.0 上，英文原文第 12 行的代码块（<a" in chinese
    for word in (
        "block",
        "snippet ",
        "notebook ",
        "property",
        "Not yet",
        "fails",
        "prints",
        " on ",
    ):
        assert word not in text(chinese).replace("torch-matrix", ""), word
    note = {
        "run": {"kind": "releases", "names": ["2.13.0"]},
        "failure": DETAILS["items"][1]["failure"],
    }
    assert text(str(words("zh").block_note(note))) == (
        "在 PyTorch 2.13.0 上，这个代码块失败：AssertionError: &#x27;x&#x27; &lt; 1。"
    )


def test_no_regular_expression_translates_html():
    """The Chinese edition's words are in its partial, not in patterns over English HTML: the
    build code holds no English phrase of the facts line."""
    for path in (ROOT / "scripts" / "hooks").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for phrase in (
            "Run it yourself",
            "<strong>Verified",
            "已验证",
            "自己运行",
        ):
            assert phrase not in source, f"{path.name} writes {phrase!r}"


def test_every_macro_the_build_calls_is_in_both_partials():
    """A translator keeps zh.html's macros for en.html's (a missing one would fail a Chinese
    page's build): the facts' macros in both, the notes' in the Chinese one."""
    macros = {
        language: set(
            re.findall(
                r"\{%-?\s*macro\s+(\w+)",
                (ROOT / "docs/.overrides/partials/page-text" / f"{language}.html").read_text(),
            )
        )
        for language in ("en", "zh")
    }
    assert set(ORDER) <= macros["en"] and set(ORDER) <= macros["zh"]
    assert {"stale", "missing", "english_page"} <= macros["zh"]


# -- the built site, both languages ---------------------------------------------------------------


def test_both_languages_in_one_build(site):
    english, chinese = (site / "index.html").read_text(), (site / "zh" / "index.html").read_text()
    assert '<html lang="en"' in english and '<html lang="zh"' in chinese
    for page in (english, chinese):
        assert 'hreflang="en"' in page and 'hreflang="zh"' in page  # the language selector
        # Material's links to the language roots stay, without hreflang (relative, and not this
        # page's translation); the sitemap gives each page's hreflang alternates, absolute.
        roots = re.findall(r'<link rel="alternate"[^>]*>', page)
        assert len(roots) == 2 and not [r for r in roots if "hreflang" in r], roots
    sitemap = (site / "sitemap.xml").read_text()
    assert '<xhtml:link rel="alternate" hreflang="zh" href="https://' in sitemap
    assert 'placeholder="搜索"' in chinese  # Material's own Chinese strings
    assert '"base": "../zh/"' in chinese and '"base": "."' in english


def test_pages_without_chinese_file_are_marked_english(site):
    nav = (site / "zh" / "index.html").read_text()
    claims = (site / "zh" / "claims" / "index.html").read_text()
    assert "已检查的论断（英文）" in nav and "英文页面" in claims and '<div lang="en">' in claims


def test_one_search_index_per_language(site):
    english = json.loads((site / "search" / "search_index.json").read_text())
    chinese = json.loads((site / "zh" / "search" / "search_index.json").read_text())
    assert not [d for d in english["docs"] if d["location"].startswith("zh/")]
    assert english["config"]["separator"] == r"[\s\-]+"
    assert "、。" in chinese["config"]["separator"] and "\\u200b" in chinese["config"]["separator"]
    # English pages standing in for missing translations stay out of the Chinese index.
    assert not [d for d in chinese["docs"] if d["location"].startswith(("claims/", "api-map/"))]


def test_chinese_pages_show_the_chinese_glossarys_tooltips_only(site):
    """The English glossary is appended to every page's Markdown (``auto_append``); on a Chinese
    page its tooltips give way to the Chinese glossary's, whose definitions are Chinese."""
    from scripts import ROOT

    titles = {}
    for page in (ROOT / "docs").glob("*.zh.md"):
        name = page.name.removesuffix(".zh.md")
        built = site / "zh" / ("" if name == "index" else name) / "index.html"
        titles[name] = re.findall(r'<abbr title="([^"]*)"', built.read_text(encoding="utf-8"))
    assert sum(map(len, titles.values())) >= 10
    assert {
        name: [t for t in found if not HAN.search(t)]
        for name, found in titles.items()
        if any(not HAN.search(t) for t in found)
    } == {}


def test_each_sitemap_lists_every_page_of_both_languages(site):
    """Material's language selector opens the same page in the other language only where that
    language's sitemap lists it; the executed notebooks' pages join the build after the i18n plugin
    has listed its pages, so ``docs/.overrides/sitemap.xml`` adds them."""
    pages = {p.parent.relative_to(site).as_posix() for p in site.rglob("index.html")}
    expected = {SITE_URL + ("" if page == "." else page + "/") for page in pages}
    for folder in (site, site / "zh"):
        listed = set(re.findall(r"<loc>([^<]*)</loc>", (folder / "sitemap.xml").read_text()))
        assert listed == expected, (sorted(expected - listed), sorted(listed - expected))


def test_every_link_of_the_chinese_site_resolves(site):
    """Figures, downloads, staleness notes, the language selector: every relative link and
    source of every page under zh/ reaches a file, and an id where it names one."""
    from tests.built_pages import broken_links

    pages = sorted(p.relative_to(site).as_posix() for p in (site / "zh").rglob("index.html"))
    assert len(pages) >= 15
    problems = [
        f"{page}: {problem}"
        for page in pages
        for problem in broken_links(site, page, whole_page=True)
    ]
    assert not problems, "\n".join(problems)


# -- a made-up two-language project, built -------------------------------------------------

PROJECT_YML = """\
site_name: t
site_url: https://example.org/
strict: true
validation:
  links: {not_found: warn, anchors: warn, absolute_links: warn, unrecognized_links: warn}
nav:
  - Home: index.md
  - Rows: rows.md
  - Other: other.md
theme: {name: material, language: en}
plugins:
  - search
  - i18n:
      docs_structure: suffix
      reconfigure_search: false
      languages:
        - {locale: en, name: English, default: true, build: true}
        - {locale: zh, name: 简体中文, build: true, theme: {language: zh}}
hooks: [hook.py]
markdown_extensions: [admonition, attr_list, {toc: {permalink: true}}]
"""
PROJECT_HOOK = """\
from mkdocs.plugins import event_priority
from scripts.hooks import zh
on_page_markdown, on_page_content = zh.on_page_markdown, zh.on_page_content
on_page_context, on_post_page = zh.on_page_context, zh.on_post_page
on_post_template = zh.on_post_template
on_nav, on_post_build = event_priority(-150)(zh.on_nav), event_priority(-150)(zh.on_post_build)
"""


def build_project(folder):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(folder / "mkdocs.yml"))
    build(config)
    return folder / "site"


def test_made_up_project_one_english_edit_one_chinese_note(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(PROJECT_YML, encoding="utf-8")
    (tmp_path / "hook.py").write_text(PROJECT_HOOK, encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [rows](rows.md#gradient).\n", encoding="utf-8")
    (docs / "other.md").write_text("# Other\n\nNot translated.\n", encoding="utf-8")
    (docs / "rows.md").write_text(ENGLISH, encoding="utf-8")
    (docs / "rows.zh.md").write_text(chinese_for(ENGLISH), encoding="utf-8")
    site = build_project(tmp_path)
    page = (site / "zh" / "rows" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="zh"' in page and page.count("英文原文已更新") == 0
    assert "Other（英文）" in page and "Rows（英文）" not in page

    (docs / "rows.md").write_text(
        ENGLISH.replace("It has 2 rows.", "It holds 2 rows."), encoding="utf-8"
    )
    site = build_project(tmp_path)
    page = (site / "zh" / "rows" / "index.html").read_text(encoding="utf-8")
    assert page.count('<p class="admonition-title">英文原文已更新</p>') == 1
    assert page.index("细节") < page.index("英文原文已更新") < page.index("它有 2 行")
    assert 'href="../../rows/#detail"' in page
    english = (site / "rows" / "index.html").read_text(encoding="utf-8")
    assert "英文原文已更新" not in english
    chinese_index = json.loads((site / "zh" / "search" / "search_index.json").read_text())
    # The home page has no Chinese file: its English stand-in stays out of the Chinese index.
    assert {d["location"].split("#")[0] for d in chinese_index["docs"]} == {"rows/"}
    # Each build's 404 page in its own place: the Chinese one does not overwrite the English one.
    assert '<html lang="en"' in (site / "404.html").read_text(encoding="utf-8")
    assert '<html lang="zh"' in (site / "zh" / "404.html").read_text(encoding="utf-8")


def site_words() -> list[str]:
    """The site's Chinese terms: each ``zh`` of the term list and each term of the Chinese glossary
    page that holds a Han character, sorted."""
    import yaml

    from scripts import ROOT

    entries = yaml.safe_load((ROOT / "snippets" / "data" / "zh-terms.yml").read_text("utf-8"))
    # a furniture label such as 已验证： is searched for without its colon
    words = {str(e.get("zh", "")).rstrip("：。") for e in entries or [] if isinstance(e, dict)}
    page = ROOT / "docs" / "glossary.zh.md"
    if page.is_file():
        words |= set(glossary.zh_glossary(page.read_text(encoding="utf-8")))
    return sorted(w for w in words if HAN.search(w))


def test_search_keeps_the_site_terms_whole():
    """jieba alone cuts 查找表 and 稀疏梯度 in two. The dictionary that mkdocs.yml gives
    Material's search plugin (``jieba_dict_user``) lists exactly the site's terms, and with it
    jieba keeps each whole, as a reader types it."""
    import jieba
    import yaml

    from scripts import ROOT

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    path = ROOT / next(
        p["search"]["jieba_dict_user"]
        for p in config["plugins"]
        if isinstance(p, dict) and "search" in p
    )
    assert path.read_text(encoding="utf-8").splitlines() == site_words()
    tokenizer = jieba.Tokenizer()
    assert "查找表" not in tokenizer.lcut("嵌入是一张查找表")
    tokenizer.load_userdict(str(path))
    assert tokenizer.lcut("嵌入是一张查找表，它的稀疏梯度") == [
        "嵌入",
        "是",
        "一张",
        "查找表",
        "，",
        "它",
        "的",
        "稀疏梯度",
    ]


def test_chinese_search_index_holds_terms_as_words(site):
    """Each of the site's terms (:func:`site_words`) that the Chinese search index holds is one
    word of it, as a reader types it: jieba's segmentation (the zero-width spaces Material's
    search plugin writes between words) never splits a term. What search leaves out (code,
    solutions, footnotes, "Where next": ``scripts/hooks/page_html.py``) holds no term to find."""
    from scripts import ROOT

    index = json.loads((site / "zh" / "search" / "search_index.json").read_text())
    separator = re.compile(index["config"]["separator"])
    texts = [d["title"] + " " + d["text"] for d in index["docs"]]
    words = {w for text in texts for w in separator.split(text)}
    unsegmented = "".join(texts).replace("\u200b", "")
    used = [w for w in site_words() if w in unsegmented]
    assert [w for w in used if w not in words] == []
    if (ROOT / "docs" / "glossary.zh.md").is_file():
        assert len(used) >= 5


def test_matrix_note_follows_its_block_into_the_chinese_page():
    """A block failing on an earlier release gets its note on the Chinese page too, after the
    same block (the Chinese page's lines differ: a longer paragraph moves the block down)."""
    from scripts.hooks import matrix_notes

    fence = "```python\nprint(1)\n```\n"
    english = f"# T\n\nOne.\n\n{fence}\nTwo.\n\n{fence}"
    chinese = f"# 标题\n<!-- en: 0 -->\n\n一。\n\n甲。\n\n乙。\n\n丙。\n\n{fence}\n二。\n\n{fence}"
    second = matrix_notes.Check("docs/t.md::line 11", {"kind": "block", "name": 11}, "f", 11)
    state = matrix_notes.Status([second], [], {}, {"2.13.0": [(second, "ValueError: no")]})
    out = matrix_notes.block_notes(chinese, english, state, words("zh"))
    assert out.count("torch-matrix-difference") == 1
    assert out.index("二。") < out.index("在 PyTorch 2.13.0 上") and out.rstrip().endswith("</p>")


def test_formulas_on_chinese_pages_carry_no_language():
    page = (
        '<p>公式 <span class="arithmatex"><math></math></span></p>'
        '<div class="arithmatex" role="math"><math></math></div>'
    )
    out = zh.formulas_without_language(page)
    assert out.count('lang="zxx"') == 2 and '<div class="arithmatex" lang="zxx" role="math">' in out
