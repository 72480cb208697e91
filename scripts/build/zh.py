"""Build steps for the Simplified Chinese edition (``docs/<page>.zh.md``, served at ``/zh/``).

mkdocs-static-i18n (``mkdocs.yml``) builds the English site, then builds the site again for ``zh``
in the same run, calling every hook once more: the steps of ``scripts/build/hook.py`` run for
each language. This module holds what differs for Chinese pages:

* **Staleness shown** (:func:`stale_notes`): each section of a Chinese page records, under its
  heading, the fingerprint of the English section it translates (``<!-- en: ... -->``,
  ``scripts/build/zh_sections.py``). Where the English section has changed since, or a Chinese page
  lacks a section, the reader sees a note in Chinese linking the current English section.
* **Pages not translated** (claims, API map, benchmarks, notebooks) are built at ``/zh/`` from
  their English text (the plugin's fallback, so that links from Chinese pages resolve): their
  navigation title ends in "（英文）", a note at the top says the page is English, their content
  carries ``lang="en"``, and the Chinese search index leaves them out.
* **Glossary tooltips** (:func:`zh_glossary`): the terms and definitions of ``docs/glossary.zh.md``
  (a definition list, ``术语（english）`` then ``:   definition``) become tooltips on Chinese
  pages. Python-Markdown's ``abbr`` matches a term between ``\\b`` word boundaries, which never
  occur inside Chinese text (every Han character is a word character to ``re``), so
  :func:`wrap_text_terms` marks the first use of each term in the page's HTML instead.
* **Search, one index per language** (:func:`on_post_build`, :func:`on_post_page`): the Chinese
  pages' entries (segmented by Material's search plugin with jieba) go to ``zh/search/`` with
  Material's Chinese search settings, and each Chinese page's ``__config`` base points at ``zh/``,
  where Material's script fetches ``search/search_index.json``. The English index keeps only the
  English pages.
* **The facts line** in Chinese (:func:`facts_in_chinese`): the notebook download and the torch
  matrix line under the title, same links.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
from pathlib import Path

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url, write_file

from scripts import root_of
from scripts.build.pdf_link import PDF_NAME, STAND_IN, placeholder_pdf
from scripts.build.zh_sections import compare, sections

#: The locale of the Chinese edition (mkdocs.yml, ``plugins.i18n.languages``).
ZH = "zh"
#: What a page not translated shows after its navigation title.
ENGLISH_MARK = "（英文）"
#: The note above a stale section and where a missing section belongs (Markdown, indented body).
STALE_NOTE = ('!!! warning "英文原文已更新"\n'
              '    本节的英文原文在翻译之后有了改动，下面的中文可能已经过时。'
              '请以<a href="{href}" hreflang="en">当前的英文原文</a>为准。\n')
MISSING_NOTE = ('!!! warning "本节尚未翻译"\n'
                '    英文页面在这里有一节还没有中文译文：'
                '<a href="{href}" hreflang="en">{heading}</a>（英文）。\n')
#: The note at the top of a page built at /zh/ from its English text.
ENGLISH_PAGE_NOTE = ('<div class="admonition note" lang="zh">'
                     '<p class="admonition-title">英文页面</p>'
                     '<p>本页尚无中文版，下面是英文原文。</p></div>')


def build_language(config: MkDocsConfig) -> str:
    """The language being built now: ``"en"`` or ``"zh"`` (``"en"`` without the i18n plugin)."""
    plugin = config.plugins.get("i18n")
    if plugin is None:
        return "en"
    return plugin.current_language or plugin.default_language


def is_chinese(page: Page) -> bool:
    """Whether ``page`` is a Chinese page (``<page>.zh.md``)."""
    return getattr(page.file, "localization", None) == ZH


def is_english_stand_in(page: Page, config: MkDocsConfig) -> bool:
    """Whether ``page`` is an English page built into the Chinese site (no ``.zh.md`` yet)."""
    return build_language(config) == ZH and not is_chinese(page)


def english_uri(page: Page) -> str:
    """The English source of a page: ``lookup-tables.md`` for ``lookup-tables.zh.md`` too."""
    return getattr(page.file, "norm_src_uri", None) or page.file.src_uri


# -- staleness --------------------------------------------------------------------------------

def stale_notes(english: str, chinese: str, english_href: str) -> str:
    """``chinese`` (a Chinese page's Markdown) with a note in Chinese under the heading of each
    section whose recorded fingerprint differs from its English section's (``english``) current
    fingerprint, and a note where each English section missing from it belongs (before the next
    Chinese section that has an English counterpart, or at the end). Each note links the English
    section: ``english_href`` (the English page's URL relative to the Chinese page) plus
    ``#anchor``. Raises ``ValueError`` when either page has no ``#`` title."""
    report = compare(english, chinese)
    lines = chinese.splitlines()
    zh = {s.anchor: s for s in sections(chinese)}
    inserts: dict[int, list[str]] = {}

    def href(anchor: str) -> str:
        return html.escape(english_href + (f"#{anchor}" if anchor else ""), quote=True)

    for anchor in report.stale:
        section = zh[anchor]
        at = section.start + (2 if section.marker is not None else 1)
        inserts.setdefault(at, []).append(STALE_NOTE.format(href=href(anchor)))
    en = sections(english)
    for n, section in enumerate(en):
        if section.anchor not in report.missing:
            continue
        after = next((zh[s.anchor].start for s in en[n + 1:] if s.anchor in zh), len(lines))
        heading = html.escape(section.heading)
        inserts.setdefault(after, []).append(MISSING_NOTE.format(href=href(section.anchor),
                                                                 heading=heading))
    out: list[str] = []
    for i in range(len(lines) + 1):
        for note in inserts.get(i, []):
            out += ["", *note.rstrip("\n").split("\n"), ""]
        if i < len(lines):
            out.append(lines[i])
    return "\n".join(out) + ("\n" if chinese.endswith("\n") else "")


# -- glossary ---------------------------------------------------------------------------------

#: A definition list's term line, ``术语（english）`` or ``COO``, and its definition's first line.
TERM_LINE = re.compile(r"^(?P<term>[^\s:].*?)\s*$")
DEFINITION = re.compile(r"^:   (?P<text>.*)$")
LINK_LINE = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*$")
#: The English in parentheses after a Chinese term: 独热（one-hot）.
GLOSS = re.compile(r"（[^（）]*）$")
HAN = re.compile(r"[\u3400-\u9fff]")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
MD_INLINE = re.compile(r"`([^`]*)`|\*\*?([^*]+)\*\*?")


def zh_glossary(text: str) -> dict[str, str]:
    """Term -> plain-text definition, from the definition list of the Chinese glossary page's
    Markdown ``text``: each term line (its English gloss in full-width parentheses dropped), and
    its definition's lines up to the link to the section that explains it. Markdown code and
    emphasis are reduced to their text."""
    terms: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], 1):
        m = DEFINITION.match(line)
        if not m or not lines[i - 1].strip() or lines[i - 1].startswith((" ", ":")):
            continue
        term = GLOSS.sub("", lines[i - 1].strip()).strip()
        body = [m["text"]]
        for follow in lines[i + 1:]:
            if not follow.startswith("    ") or LINK_LINE.match(follow):
                break
            body.append(follow.strip())
        definition = body[0]
        for part in body[1:]:
            joined = CJK.match(definition[-1:]) or CJK.match(part[:1])
            definition += part if joined else " " + part
        definition = MD_INLINE.sub(lambda x: x[1] or x[2], definition)
        terms.setdefault(term, definition.strip())
    return terms


#: Elements whose text never gets a tooltip.
SKIP = {"code", "pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "abbr", "script", "style",
        "svg", "math", "figcaption", "summary", "button", "label", "textarea", "title",
        "span.filename"}
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>|<!--.*?-->", re.S)
VOID = {"br", "img", "hr", "input", "meta", "link", "source", "wbr", "col", "area"}


def wrap_text_terms(page_html: str, terms: dict[str, str]) -> str:
    """``page_html`` with the first use of each term in text (outside code, links, headings,
    figures' captions and existing ``<abbr>``) wrapped in ``<abbr title="definition">``, the
    markup Python-Markdown's ``abbr`` gives (Material shows it as a tooltip). Works inside
    Chinese text, where ``\\b`` does not; a longer term wins over a shorter one it contains."""
    if not terms:
        return page_html
    pattern = re.compile("|".join(re.escape(html.escape(t, quote=False))
                                  for t in sorted(terms, key=len, reverse=True)))
    seen: set[str] = set()
    out, stack, pos = [], [], 0

    def text(chunk: str) -> str:
        if any(tag in SKIP for tag in stack):
            return chunk

        def wrap(m: re.Match) -> str:
            term = html.unescape(m[0])
            if term in seen:
                return m[0]
            seen.add(term)
            return f'<abbr title="{html.escape(terms[term], quote=True)}">{m[0]}</abbr>'

        return pattern.sub(wrap, chunk)

    for m in TAG.finditer(page_html):
        out.append(text(page_html[pos:m.start()]))
        out.append(m[0])
        pos = m.end()
        if m[0].startswith("<!--"):
            continue
        closing, name, self_closing = m[1], m[2].lower(), m[3]
        if closing:
            names = {name, f"{name}.filename"}  # a code block's title closes as a span
            if names & set(stack):
                while stack and stack.pop() not in names:
                    pass
        elif name not in VOID and not self_closing:
            # A code block's title: the one-pass HTML step reads it as plain text (no tags).
            stack.append(f"{name}.filename" if 'class="filename"' in m[0] else name)
    out.append(text(page_html[pos:]))
    return "".join(out)


def glossary_terms_for(page: Page, config: MkDocsConfig) -> dict[str, str] | None:
    """The Chinese tooltips' terms for a Chinese page (from ``docs/glossary.zh.md``), ``{}`` when
    that page does not exist yet, ``None`` for any other page (it uses the English glossary)."""
    if not is_chinese(page):
        return None
    path = Path(config.docs_dir) / "glossary.zh.md"
    if not path.is_file():
        return {}
    return zh_glossary(path.read_text(encoding="utf-8"))


# -- the facts line ---------------------------------------------------------------------------

FACTS = [
    (re.compile(r"Run it yourself: (<a [^>]*>[^<]*</a>) \(this article as a notebook, with the "
                r"files it reads\)"), r"自己运行：\1（本文的笔记本，含它读取的文件）"),
    (re.compile(r"Run it yourself: (<a [^>]*>[^<]*</a>) \(this article as a notebook\)"),
     r"自己运行：\1（本文的笔记本）"),
    (re.compile(r"<strong>Verified</strong>: (\d+) checks? on torch "
                r"([^<;]*?)(?= and <a|;|</span>)"),
     r"<strong>已验证</strong>：\1 项检查，torch \2"),
    (re.compile(r" and (<a [^>]*>)(\d+) CPU paths? of (\d+) machines?</a>"),
     r"，以及 \1\3 台机器上的 \2 条 CPU 路径</a>"),
    (re.compile(r" and (<a [^>]*>)(\d+) CPU paths?</a>"), r"，以及 \1\2 条 CPU 路径</a>"),
    (re.compile(r"(\d+) CUDA checks? on torch ([^<;]*?) and (<a [^>]*>)?(\d+) GPUs?"),
     r"\1 项 CUDA 检查，torch \2，\3\4 块 GPU"),
    (re.compile(r">(\d+) not yet run on a GPU</a>"), r">\1 项尚未在 GPU 上运行</a>"),
    (re.compile(r">(\d+) not yet run on ([^<]*)</a>"), r">\1 项尚未在 \2 上运行</a>"),
    (re.compile(r">(\d+) differs? on CPU path ([^<]*)</a>"), r">\1 项在 CPU 路径 \2 上不同</a>"),
    (re.compile(r">(\d+) differs? on ([^<]*)</a>"), r">\1 项在 \2 上不同</a>"),
    (re.compile(r">not yet run on (\d+) CPU paths?</a>"), r">尚未在 \1 条 CPU 路径上运行</a>"),
]
FACTS_LINE = re.compile(r'<p class="page-facts">.*?</p>', re.S)


def facts_in_chinese(page_html: str) -> str:
    """The facts line under a Chinese page's title, its fixed English phrases in Chinese (the
    release numbers, counts and links unchanged). Release lists keep their English "and"
    replaced by "和"."""
    def translate(m: re.Match) -> str:
        line = m[0]
        for pattern, repl in FACTS:
            line = pattern.sub(repl, line)
        line = re.sub(r"(\d), (?=\d)", r"\1、", line.replace("; ", "；"))
        return re.sub(r"(\d) and (\d)", r"\1 和 \2", line)

    return FACTS_LINE.sub(translate, page_html, count=1)


FORMULA = re.compile(r'<(div|span) class="arithmatex"')


def formulas_without_language(page_html: str) -> str:
    """``page_html`` with each formula (``class="arithmatex"``, scripts/build/markdown_math.py)
    marked ``lang="zxx"``, no linguistic content. Inside a ``lang="zh"`` page, Chromium draws a
    formula's ``·`` and Greek letters from a CJK font, whose wide glyphs made a formula of the
    Chinese static-vs-contextual page 277 px wide where the English page's is 254 px (wider than
    a phone's column, 328 px for the pair); marked, it takes the English page's widths."""
    return FORMULA.sub(r'<\1 class="arithmatex" lang="zxx"', page_html)


# -- MkDocs events ----------------------------------------------------------------------------

def _outside_docs(file, docs: Path) -> bool:
    """Whether ``file`` was made by the build rather than read from ``docs/``: a generated file
    (``abs_src_path`` ``None``), a figure drawn into the cache, an executed notebook."""
    return file.abs_src_path is None or not Path(file.abs_src_path).resolve().is_relative_to(docs)


#: The term list of the Chinese edition, relative to the project root.
TERMS_FILE = "snippets/data/zh-terms.yml"


def site_words(root: Path, docs: Path) -> list[str]:
    """The site's Chinese terms: the ``zh`` of each entry of :data:`TERMS_FILE` and each term
    of ``docs/glossary.zh.md``, those holding Han characters, sorted (either file may be absent)."""
    words: set[str] = set()
    terms = root / TERMS_FILE
    if terms.is_file():
        entries = yaml.safe_load(terms.read_text(encoding="utf-8")) or []
        words |= {str(entry.get("zh", "")) for entry in entries if isinstance(entry, dict)}
    glossary = docs / "glossary.zh.md"
    if glossary.is_file():
        words |= set(zh_glossary(glossary.read_text(encoding="utf-8")))
    return sorted(w for w in words if HAN.search(w))


def add_site_words(root: Path, docs: Path) -> None:
    """Teach jieba the site's terms (:func:`site_words`), so that Material's search plugin keeps
    each one whole: jieba's own dictionary cuts 查找表 into 查找 / 表 and 稀疏梯度 into
    稀疏 / 梯度, and a reader's query, which the browser does not segment, would then match
    nothing."""
    try:
        import jieba
    except ImportError:  # Material's search indexes Chinese unsegmented without it
        return
    for word in site_words(root, docs):
        jieba.add_word(word)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Let the i18n plugin sort only the files read from ``docs/``.

    The execute stage adds files before the plugin sorts them by language (its ``on_files`` runs
    last): generated downloads without a source path, which the plugin cannot read, and executed
    notebooks outside ``docs/``, which it drops ("Unhandled file case"). The plugin's
    ``reconfigure_files`` is given the files of ``docs/`` alone; the others join its result as
    they are, shared by both languages, except that in the Chinese build a page among them (a
    notebook) is written under ``zh/``, as the plugin places an English page that has no Chinese
    file."""
    # jieba (Material's search segments Chinese with it) logs its dictionary loading on stderr.
    logging.getLogger("jieba").setLevel(logging.WARNING)
    add_site_words(root_of(config), Path(config.docs_dir))
    plugin = config.plugins.get("i18n")
    if plugin is None or getattr(plugin.reconfigure_files, "_docs_only", False):
        return config
    original = plugin.reconfigure_files

    def reconfigure_files(files, mkdocs_config):
        docs = Path(mkdocs_config.docs_dir).resolve()
        made = [f for f in files if _outside_docs(f, docs)]
        result = original(type(files)([f for f in files if not _outside_docs(f, docs)]),
                          mkdocs_config)
        language = plugin.current_language
        for file in made:
            if file.is_documentation_page():
                if language != plugin.default_language and not file.dest_uri.startswith(
                        f"{language}/"):
                    file.dest_uri = f"{language}/{file.dest_uri}"
                    file.url = file._get_url()
                    file.abs_dest_path = os.path.normpath(os.path.join(file.dest_dir,
                                                                       file.dest_uri))
                file.alternates = {language: file}
                file.locale, file.localization = plugin.default_language, None
                file.locale_alternate_of, file.norm_src_uri = language, file.src_uri
            result.append(file)
        if language != plugin.default_language:
            # A notebook page links its download beside it (notebooks/x/x.ipynb): the page under
            # zh/ gets the same file beside it.
            pages = {f.src_uri.removesuffix(".ipynb") for f in made if f.is_documentation_page()}
            for file in made:
                folder = file.src_uri.rpartition("/")[0]
                if file.generated_by and folder in pages:
                    result.append(File.generated(mkdocs_config, f"{language}/{file.src_uri}",
                                                 content=file.content_bytes))
        return result

    reconfigure_files._docs_only = True
    plugin.reconfigure_files = reconfigure_files
    return config


def on_files(files, *, config: MkDocsConfig):
    """In the Chinese build, the stand-in of the Chinese site's PDF at ``zh/``: the Chinese home
    page's link to ``embedding-executed.pdf`` resolves to it (the i18n plugin looks for
    ``embedding-executed.zh.pdf`` first), and ``python -m scripts site-pdf`` prints the real one
    over it."""
    if build_language(config) != ZH:
        return files
    stand_in = File.generated(config, PDF_NAME.replace(".pdf", f".{ZH}.pdf"),
                              content=placeholder_pdf(STAND_IN))
    stand_in.dest_uri = f"{ZH}/{PDF_NAME}"
    files.append(stand_in)
    return files


def on_nav(nav, *, config: MkDocsConfig, files):
    """In the Chinese build, mark each page that has no Chinese file as English in the
    navigation (runs after the i18n plugin has translated the titles)."""
    if build_language(config) != ZH:
        return nav

    def mark(items) -> None:
        for item in items:
            if isinstance(item, Page) and not is_chinese(item) and item.title:
                if not item.title.endswith(ENGLISH_MARK):
                    item.title += ENGLISH_MARK
            mark(getattr(item, "children", None) or [])

    mark(nav.items)
    return nav


#: ``pymdownx.snippets``' ``auto_append`` as mkdocs.yml sets it (the English glossary).
_english_append: dict[int, list[str]] = {}


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """A Chinese page gets its staleness notes (:func:`stale_notes`), and not the English
    glossary's abbreviations that ``pymdownx.snippets`` appends to every page (``auto_append``,
    read when MkDocs makes the page's Markdown converter, right after this event): its tooltips
    are the Chinese glossary's (:func:`on_page_content`)."""
    snippets = config.mdx_configs.get("pymdownx.snippets")
    if snippets is not None:
        english = _english_append.setdefault(id(snippets), list(snippets.get("auto_append", [])))
        snippets["auto_append"] = [] if is_chinese(page) else english
    if not is_chinese(page):
        return markdown
    source = Path(config.docs_dir) / english_uri(page)
    try:
        english_text = source.read_text(encoding="utf-8")
    except OSError as err:
        raise PluginError(f"{page.file.src_uri}: no English page {source.name}") from err
    # The English page's URL is the Chinese page's without zh/ (zh/x/ -> x/, zh/ -> the root).
    href = get_relative_url(page.file.url.removeprefix(f"{ZH}/") or ".", page.file.url)
    href = href if href.endswith("/") else href + "/"
    try:
        return stale_notes(english_text, markdown, href)
    except ValueError as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from err


def on_page_content(page_html: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Chinese pages: the facts line in Chinese and the glossary's terms as tooltips in text.
    English pages of the Chinese build: marked as English, left out of the Chinese search."""
    if is_chinese(page):
        terms = glossary_terms_for(page, config) or {}
        # The torch matrix's notes at failing blocks stay in English, marked so.
        page_html = page_html.replace('<p class="torch-matrix-difference">',
                                      '<p class="torch-matrix-difference" lang="en">')
        page_html = formulas_without_language(page_html)
        return wrap_text_terms(facts_in_chinese(page_html), terms)
    if is_english_stand_in(page, config):
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
        head, sep, rest = page_html.partition("</h1>")
        if not sep:
            head, rest = "", page_html
        return f"{head}{sep}{ENGLISH_PAGE_NOTE}<div lang=\"en\">{rest}</div>"
    return page_html


def on_page_context(context, *, page: Page, config: MkDocsConfig, nav):
    """The ``hreflang`` links name each language's root, relative to
    the page (``.``/``..`` and ``zh/``), as Material expects: its script fetches the
    ``sitemap.xml`` under each ``link rel="alternate"`` and, when a reader picks a language, opens
    the same page there if that sitemap lists it (:func:`on_post_build` writes ``zh/sitemap.xml``;
    the i18n plugin's sitemap lists every page with its alternates). The plugin's links name the
    page itself in each language, under which there is no sitemap (a failed request on every page
    load), and stay absolute (``/``, ``/zh/``) on the home pages, which breaks under a
    ``site_url`` with a path."""
    alternates = getattr(config.extra, "alternate", None) or config.extra.get("alternate") or []
    # The selector itself (docs/.overrides/partials/alternate.html) links the same page in each
    # language: the Chinese build has every page, translated or standing in.
    path = page.url.removeprefix(f"{ZH}/") if page.url != f"{ZH}/" else ""
    for alternate in alternates:
        alternate["link"] = f"{ZH}/" if alternate["lang"] == ZH else ""
        alternate["page"] = f"{ZH}/{path}" if alternate["lang"] == ZH else path
    return context


CONFIG_BASE = re.compile(
    r'(<script id="__config" type="application/json">\{[^<]*?"base": ")([^"]*)"')


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """A page of the Chinese build fetches the Chinese search index: its ``__config`` base is
    the Chinese site's root (``zh/``), where :func:`on_post_build` writes that index."""
    if build_language(config) != ZH:
        return output
    # With the slash: Material resolves search/search_index.json against this URL.
    return CONFIG_BASE.sub(lambda m: f'{m[1]}{m[2].rstrip("/") or "."}/{ZH}/"', output, count=1)


#: The English build's 404 page, put back after the Chinese build has written its own.
_english_404: dict[str, bytes | None] = {}


def on_post_build(*, config: MkDocsConfig) -> None:
    """In the Chinese build: write its pages' search entries to ``zh/search/search_index.json``
    (locations relative to ``zh/``; Material's Chinese search settings: separator and pipeline
    from its ``zh`` language file), and take them out of the plugin's index, so that the index
    the i18n plugin writes last at ``search/`` holds the English pages alone."""
    site = Path(config.site_dir)
    if build_language(config) != ZH:
        _english_404["bytes"] = (site / "404.html").read_bytes() if (site / "404.html").is_file() \
            else None
        return
    # Material looks for each language's sitemap under its root (on_page_context).
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        if (site / name).is_file():
            write_file((site / name).read_bytes(), str(site / ZH / name))
    # The Chinese build writes its 404 page over the English one: it moves to zh/404.html.
    if (site / "404.html").is_file() and _english_404.get("bytes") is not None:
        write_file((site / "404.html").read_bytes(), str(site / ZH / "404.html"))
        (site / "404.html").write_bytes(_english_404["bytes"])
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    if plugin is None or not hasattr(plugin, "search_index"):
        return
    entries = plugin.search_index.entries
    docs = [{**e, "location": e["location"].removeprefix(f"{ZH}/")} for e in entries]
    search_config = {
        "lang": [plugin._translate(config, "search.config.lang")],
        "separator": plugin._translate(config, "search.config.separator"),
        "pipeline": list(filter(len, re.split(r"\s*,\s*", plugin._translate(
            config, "search.config.pipeline")))),
        "fields": plugin.search_index.config["fields"],
    }
    data = json.dumps({"config": search_config, "docs": docs}, separators=(",", ":"), default=str)
    write_file(data.encode("utf-8"), str(Path(config.site_dir) / ZH / "search" /
                                          "search_index.json"))
    entries.clear()
