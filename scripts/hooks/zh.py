"""Build steps of the Simplified Chinese edition (``docs/<page>.zh.md``, at ``/zh/``), which
mkdocs-static-i18n builds inside the English build's ``on_post_build``: the notes at sections
behind their English source, the English pages shown at ``zh/`` marked as such, the language
selector's links, the Chinese search index, 404 page and sitemap. Its words are in
``docs/.overrides/partials/page-text/zh.html`` (:mod:`scripts.hooks.page_text`); the glossary's
tooltips are :mod:`scripts.hooks.glossary`'s. See CONTRIBUTING.md."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url, write_file

from scripts.hooks import page_text
from scripts.hooks.markdown_blocks import Section, sections

# jieba logs its dictionary's loading (Material's search, on_config) on stderr: quiet at import.
logging.getLogger("jieba").setLevel(logging.WARNING)
#: The Chinese edition's locale: its pages' suffix (``x.zh.md``), its folder and its language.
ZH = "zh"


def fingerprint(section: Section) -> str:
    """12 hex digits of the SHA-256 of a section's text, its trailing blanks left out."""
    text = "\n".join(line.rstrip() for line in section.text.splitlines()).strip("\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def current_pairs(english: list[Section], chinese: list[Section]) -> list[tuple[Section, Section]]:
    """The pairs whose Chinese section records its English one's fingerprint, in English order."""
    zh = {s.anchor: (n, s) for n, s in enumerate(chinese)}
    pairs = []
    last = -1  # where the last current pair's Chinese section is: the next must come after it
    for section in english:
        n, other = zh.get(section.anchor, (-1, None))
        if other is not None and n > last and other.marker == fingerprint(section):
            pairs.append((section, other))
            last = n
    return pairs


def stale_notes(english: str, chinese: str, english_href: str, words) -> str:
    """``chinese`` (a Chinese page's Markdown) with a note at each section whose English source
    changed since it was translated (after its heading and fingerprint comment) and at each
    English section it lacks (before the next section it has), linking ``english_href#anchor``.
    ``words``: the Chinese partial (:func:`scripts.hooks.page_text.words`), whose ``stale`` and
    ``missing`` macros write the notes. Raises ``ValueError`` when either page has no ``#``
    title."""
    en = sections(english)
    translated = sections(chinese)
    lines = chinese.splitlines()
    zh = {s.anchor: s for s in translated}
    current = [e for e, _ in current_pairs(en, translated)]
    notes: dict[int, list[str]] = {}  # line number -> the note's lines to put before it
    for n, section in enumerate(en):
        href = english_href
        if section.anchor:
            href += f"#{section.anchor}"
        if section.anchor not in zh:
            later = [zh[s.anchor].start for s in en[n + 1 :] if s.anchor in zh]
            at = later[0] if later else len(lines)
            text = str(words.missing(href, section.heading))
        elif section not in current:
            start = zh[section.anchor]
            at = start.start + 1  # after the heading
            if start.marker:
                at += 1  # and after its fingerprint comment
            text = str(words.stale(href))
        else:
            continue
        notes.setdefault(at, []).extend(["", *text.split("\n"), ""])
    out = []
    for i in range(len(lines) + 1):
        out.extend(notes.get(i, []))
        out.extend(lines[i : i + 1])
    end = "\n" if chinese.endswith("\n") else ""
    return "\n".join(out) + end


def formulas_without_language(page_html: str) -> str:
    """``page_html`` with each formula (``class="arithmatex"``, scripts/hooks/markdown_math.py)
    marked ``lang="zxx"``, no linguistic content. Inside a ``lang="zh"`` page, Chromium draws a
    formula's ``·`` and Greek letters from a CJK font, whose wide glyphs made a formula of the
    Chinese static-vs-contextual page 277 px wide where the English page's is 254 px (wider than a
    phone's column, 328 px for the pair); marked, it takes the English page's widths."""
    return page_html.replace(' class="arithmatex"', ' class="arithmatex" lang="zxx"')


def on_nav(nav, *, config: MkDocsConfig, files):
    """The Chinese build: pages without a Chinese file marked English in the navigation (the
    partial's ``english_mark`` after their titles)."""
    if config.theme["language"] != ZH:
        return nav
    mark = page_text.words(ZH, config.theme.dirs).english_mark
    for page in nav.pages:
        english = page_text.language_of(page) != ZH
        if english and page.title and not page.title.endswith(mark):
            page.title += mark
    return nav


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """A Chinese page: :func:`stale_notes`, linking the English page (its URL without ``zh/``).
    Raises ``PluginError`` naming the page when its English page cannot be read or either has
    no title."""
    if page_text.language_of(page) != ZH:
        return markdown
    href = get_relative_url(page.file.url.removeprefix(f"{ZH}/") or ".", page.file.url)
    english_path = Path(config.docs_dir) / (page.file.src_uri.removesuffix(f".{ZH}.md") + ".md")
    words = page_text.words(ZH, config.theme.dirs)
    try:
        english = english_path.read_text(encoding="utf-8")
        return stale_notes(english, markdown, href.rstrip("/") + "/", words)
    except (OSError, ValueError) as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from err


def on_page_content(page_html: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """A Chinese page: its formulas without a language (:func:`formulas_without_language`). An
    English page of the Chinese build: out of the Chinese search index, and what follows its
    title marked English (``lang="en"``) under the partial's ``english_page`` note."""
    if page_text.language_of(page) == ZH:
        return formulas_without_language(page_html)
    if config.theme["language"] != ZH:
        return page_html
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    head, sep, rest = page_html.partition("</h1>")
    if not sep:  # no title: the whole page is the English text
        head, rest = "", page_html
    note = page_text.words(ZH, config.theme.dirs).english_page()
    return f'{head}{sep}{note}<div lang="en">{rest}</div>'


def on_page_context(context, *, page: Page, config: MkDocsConfig, nav):
    """The language selector's entries (``config.extra.alternate``, which the i18n plugin
    fills): each ``link`` names its language's root (``""`` or ``zh/``, which Material's ``url``
    filter makes relative to the page), as Material expects: its script fetches the
    ``sitemap.xml`` under each ``<link rel="alternate">`` and, when a reader picks a language,
    opens the same page there if that sitemap lists it (:func:`on_post_build` writes
    ``zh/sitemap.xml``). The plugin's links name the page itself in each language, under which
    there is no sitemap (a failed request on every page load). Each entry's ``page`` is this page
    in that language, which the site's ``partials/alternate.html`` links in the selector."""
    path = page.url.removeprefix(f"{ZH}/") if page.url != f"{ZH}/" else ""
    for alternate in getattr(config.extra, "alternate", None) or config.extra.get("alternate"):
        alternate["link"] = f"{ZH}/" if alternate["lang"] == ZH else ""
        alternate["page"] = alternate["link"] + path
    return context


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """Every page: Material's ``<link rel="alternate">`` to each language's root
    (:func:`on_page_context`) without its ``hreflang``. Material's script needs the links (it
    reads the sitemap under each), not their ``hreflang``; as hreflang alternates they would be
    wrong twice: relative, which search engines ignore and Lighthouse fails ("Relative href
    value"), and naming the language's home page, not this page in that language. The sitemap
    gives each page's alternates, absolute (``docs/.overrides/sitemap.xml``).

    A page of the Chinese build also loads the Chinese search index (``__config``'s base
    ``zh/``)."""
    output = re.sub(r'(<link rel="alternate" href="[^"]*") hreflang="[^"]*"(>)', r"\1\2", output)
    if config.theme["language"] != ZH:
        return output
    return re.sub(
        r'(<script id="__config" type="application/json">\{[^<]*?"base": ")([^"]*)"',
        lambda m: f'{m[1]}{m[2].rstrip("/") or "."}/{ZH}/"',
        output,
        count=1,
    )


def on_post_template(output: str, *, template_name: str, config: MkDocsConfig) -> str:
    """The Chinese build's 404 page goes to ``zh/404.html``, not over the English one."""
    if template_name != "404.html" or config.theme["language"] != ZH:
        return output
    write_file(output.encode("utf-8"), str(Path(config.site_dir) / ZH / "404.html"))
    return ""


def on_post_build(*, config: MkDocsConfig) -> None:
    """The search index split by language: the ``zh/`` entries to ``zh/search/``, with their
    ``zh/`` left out of their locations and with Material's Chinese search settings (from its
    ``partials/languages/zh.html``, through its ``partials/language.html``), the others kept;
    the sitemap copied to ``zh/``, where Material's language selector reads it. Nothing without
    a Chinese site."""
    site = Path(config.site_dir)
    index = site / "search" / "search_index.json"
    if not (site / ZH).is_dir():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    chinese_context = {"config": {"theme": {"language": ZH}}}
    language = config.theme.get_env().get_template("partials/language.html", None, chinese_context)
    translate = language.module.t  # Material's lookup of an interface string

    def setting(key: str) -> str:
        return str(translate(f"search.config.{key}"))

    settings = {
        "lang": [setting("lang")],
        "separator": setting("separator"),
        "pipeline": re.findall(r"[^\s,]+", setting("pipeline")),
        "fields": data["config"]["fields"],
    }
    zh = [{**d, "location": d["location"][3:]} for d in data["docs"] if d["location"][:3] == "zh/"]
    en = [d for d in data["docs"] if d["location"][:3] != "zh/"]
    for path, out in [
        (site / ZH / "search" / index.name, {"config": settings, "docs": zh}),
        (index, {**data, "docs": en}),
    ]:
        # as UTF-8, not \uXXXX escapes: a third of the Chinese index's bytes, gzip-compressed
        write_file(json.dumps(out, separators=(",", ":"), ensure_ascii=False).encode(), str(path))
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        write_file((site / name).read_bytes(), str(site / ZH / name))
