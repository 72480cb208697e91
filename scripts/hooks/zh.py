"""Build steps of the Simplified Chinese edition (``docs/<page>.zh.md``, at ``/zh/``), which
mkdocs-static-i18n builds inside the English build's ``on_post_build``. See CONTRIBUTING.md."""

from __future__ import annotations

import functools
import hashlib
import html
import json
import logging
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url, write_file

from scripts.hooks.execute_stage import PDF_NAME, STAND_IN, NotebookPage, placeholder_pdf
from scripts.hooks.markdown_blocks import Section, sections

# jieba logs its dictionary's loading (Material's search, on_config) on stderr: quiet at import.
logging.getLogger("jieba").setLevel(logging.WARNING)
ZH, ENGLISH_MARK = "zh", "（英文）"  # the locale; after the title of a page not translated
STALE = (
    '!!! warning "英文原文已更新"\n    本节的英文原文在翻译之后有了改动，下面的中文可能已经'
    '过时。请以<a href="{href}" hreflang="en">当前的英文原文</a>为准。'
)
MISSING = (
    '!!! warning "本节尚未翻译"\n    英文页面在这里有一节还没有中文译文：'
    '<a href="{href}" hreflang="en">{heading}</a>（英文）。'
)
ENGLISH_PAGE = (
    '<div class="admonition note" lang="zh"><p class="admonition-title">英文页面'
    "</p><p>本页尚无中文版，下面是英文原文。</p></div>"
)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
#: Text without tooltips (code, links, headings, a code block's title...), and any other tag.
NO_TERMS = (
    r"<!--.*?-->|<(code|pre|a|h[1-6]|abbr|script|style|svg|math|figcaption|summary|"
    r'button|label|textarea|title)\b.*?</\1>|<span class="filename".*?</span>|<[^>]*>'
)
#: The facts line's English phrases (page_facts.py, matrix_notes.py) in Chinese, in this order.
FACTS = [
    (re.compile(a), b)
    for a, b in [
        (
            r"Run it yourself: (<a [^>]*>[^<]*</a>) "
            r"\(this article as a notebook(, with the files it reads)?\)",
            lambda m: f"自己运行：{m[1]}（本文的笔记本{'，含它读取的文件' * bool(m[2])}）",
        ),
        (
            r"<strong>Verified</strong>: (\d+) checks? on torch ([^<;]*?)(?= and <a|;|</span>)",
            r"<strong>已验证</strong>：\1 项检查，torch \2",
        ),
        (
            r" and (<a [^>]*>)(\d+) CPU paths? of (\d+) machines?</a>",
            r"，以及 \1\3 台机器上的 \2 条 CPU 路径</a>",
        ),
        (r" and (<a [^>]*>)(\d+) CPU paths?</a>", r"，以及 \1\2 条 CPU 路径</a>"),
        (
            r"(\d+) CUDA checks? on torch ([^<;]*?) and (<a [^>]*>)?(\d+) GPUs?",
            r"\1 项 CUDA 检查，torch \2，\3\4 块 GPU",
        ),
        (r">(\d+) not yet run on a GPU</a>", r">\1 项尚未在 GPU 上运行</a>"),
        (r">(\d+) not yet run on ([^<]*)</a>", r">\1 项尚未在 \2 上运行</a>"),
        (r">(\d+) differs? on CPU path ([^<]*)</a>", r">\1 项在 CPU 路径 \2 上不同</a>"),
        (r">(\d+) differs? on ([^<]*)</a>", r">\1 项在 \2 上不同</a>"),
        (r">not yet run on (\d+) CPU paths?</a>", r">尚未在 \1 条 CPU 路径上运行</a>"),
        (r"; ", "；"),
        (r"(\d), (?=\d)", r"\1、"),
        (r"(\d) and (\d)", r"\1 和 \2"),
    ]
]


def fingerprint(section: Section) -> str:
    """12 hex digits of the SHA-256 of a section's text, its trailing blanks left out."""
    text = "\n".join(line.rstrip() for line in section.text.splitlines()).strip("\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def current_pairs(english: list[Section], chinese: list[Section]) -> list[tuple[Section, Section]]:
    """The pairs whose Chinese section records its English one's fingerprint, in English order."""
    zh, pairs, last = {s.anchor: (n, s) for n, s in enumerate(chinese)}, [], -1
    for section in english:
        n, other = zh.get(section.anchor, (-1, None))
        if other is not None and n > last and other.marker == fingerprint(section):
            pairs, last = [*pairs, (section, other)], n
    return pairs


def is_chinese(page: Page) -> bool:
    return page.file.src_uri.endswith(f".{ZH}.md")


def stale_notes(english: str, chinese: str, english_href: str) -> str:
    """``chinese`` with a note at each stale or missing section, linking ``english_href#anchor``.
    Raises ``ValueError`` when either page has no ``#`` title."""
    en, translated, lines, notes = sections(english), sections(chinese), chinese.splitlines(), {}
    zh, current = {s.anchor: s for s in translated}, [e for e, _ in current_pairs(en, translated)]
    for n, section in enumerate(en):
        href = html.escape(english_href + (f"#{section.anchor}" if section.anchor else ""))
        if section.anchor not in zh:
            at = next((zh[s.anchor].start for s in en[n + 1 :] if s.anchor in zh), len(lines))
            text = MISSING.format(href=href, heading=html.escape(section.heading))
        elif section not in current:
            at = zh[section.anchor].start + (2 if zh[section.anchor].marker else 1)
            text = STALE.format(href=href)
        else:
            continue
        notes.setdefault(at, []).extend(["", *text.split("\n"), ""])
    out = [line for i in range(len(lines) + 1) for line in notes.get(i, []) + lines[i : i + 1]]
    return "\n".join(out) + ("\n" if chinese.endswith("\n") else "")


def zh_glossary(text: str) -> dict[str, str]:
    """Term (its ``（english）`` left out) -> plain definition, from the Chinese glossary page."""
    terms, lines = {}, text.splitlines()
    for i, line in enumerate(lines[1:], 1):
        if not line.startswith(":   ") or not lines[i - 1].strip() or lines[i - 1][0] in " :":
            continue
        definition = line[4:]
        for part in lines[i + 1 :]:
            if not part.startswith("    ") or re.fullmatch(r"\s*\[[^\]]*\]\([^)]*\)\s*", part):
                break
            glue = CJK.match(definition[-1:]) or CJK.match(part.strip()[:1])
            definition += ("" if glue else " ") + part.strip()
        terms.setdefault(
            re.sub(r"（[^（）]*）$", "", lines[i - 1].strip()).strip(),
            re.sub(r"`([^`]*)`|\*\*?([^*]+)\*\*?", lambda m: m[1] or m[2], definition).strip(),
        )
    return terms


def wrap_text_terms(page_html: str, terms: dict[str, str]) -> str:
    """``page_html`` with each term's first use in text (not in :data:`NO_TERMS`) in
    ``<abbr title="definition">``: ``abbr``'s ``\\b`` never matches inside Chinese text."""
    escaped = {html.escape(t, quote=False): t for t in sorted(terms, key=len, reverse=True)}
    seen = set()

    def wrap(m: re.Match) -> str:
        term = escaped.get(m[0])
        if term is None or term in seen:
            return m[0]
        seen.add(term)
        return f'<abbr title="{html.escape(terms[term])}">{m[0]}</abbr>'

    words = "".join(f"|{re.escape(t)}" for t in escaped)
    return re.sub(NO_TERMS + words, wrap, page_html, flags=re.S) if terms else page_html


def glossary_terms_for(page: Page, config: MkDocsConfig) -> dict[str, str] | None:
    """A Chinese page's tooltips (``docs/glossary.zh.md``; ``{}`` without it), else ``None``."""
    if not is_chinese(page):
        return None
    path = Path(config.docs_dir) / "glossary.zh.md"
    return _zh_glossary(path, path.stat().st_mtime_ns) if path.is_file() else {}


@functools.lru_cache(maxsize=8)  # read once per version of the file
def _zh_glossary(path: Path, mtime_ns: int) -> dict[str, str]:
    return zh_glossary(path.read_text(encoding="utf-8"))


def facts_in_chinese(page_html: str) -> str:
    """``page_html`` with the facts line under its title in Chinese (same numbers and links)."""
    return re.sub(
        r'<p class="page-facts">.*?</p>',
        lambda m: functools.reduce(lambda line, fact: fact[0].sub(fact[1], line), FACTS, m[0]),
        page_html,
        count=1,
        flags=re.S,
    )


def formulas_without_language(page_html: str) -> str:
    """Formulas ``lang="zxx"``: else Chromium draws ``·`` and Greek in a CJK font, too wide."""
    return page_html.replace(' class="arithmatex"', ' class="arithmatex" lang="zxx"')


def on_files(files, *, config: MkDocsConfig):
    """The Chinese build: executed notebook pages and their downloads under ``zh/``; the Chinese
    PDF stand-in, found by the Chinese home page's link before the English one (i18n's suffixes)."""
    if config.theme["language"] != ZH:
        return files
    for nb in [f for f in files if isinstance(f, NotebookPage)]:
        nb.dest_uri = f"{ZH}/{nb.dest_uri}"
        for made in [
            f
            for f in files
            if f.generated_by and f.src_uri.rpartition("/")[0] == nb.src_uri.removesuffix(".ipynb")
        ]:
            files.append(File.generated(config, f"{ZH}/{made.src_uri}", content=made.content_bytes))
    pdf = File.generated(config, f"{PDF_NAME[:-4]}.{ZH}.pdf", content=placeholder_pdf(STAND_IN))
    pdf.dest_uri = f"{ZH}/{PDF_NAME}"
    files.append(pdf)
    return files


def on_nav(nav, *, config: MkDocsConfig, files):
    """The Chinese build: pages without a Chinese file marked English in the navigation."""
    for page in nav.pages if config.theme["language"] == ZH else []:
        if not is_chinese(page) and page.title and not page.title.endswith(ENGLISH_MARK):
            page.title += ENGLISH_MARK
    return nav


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """A Chinese page: :func:`stale_notes`, linking the English page (its URL without ``zh/``)."""
    if not is_chinese(page):
        return markdown
    href = get_relative_url(page.file.url.removeprefix(f"{ZH}/") or ".", page.file.url)
    try:
        english = (Path(config.docs_dir) / f"{page.file.src_uri[:-6]}.md").read_text("utf-8")
        return stale_notes(english, markdown, href.rstrip("/") + "/")
    except (OSError, ValueError) as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from err


def on_page_content(page_html: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Chinese pages: Chinese tooltips and facts; English pages at ``zh/``: marked, unindexed."""
    if is_chinese(page):
        page_html = re.sub(r'<abbr title="[^"]*">(.*?)</abbr>', r"\1", page_html, flags=re.S)
        page_html = page_html.replace('matrix-difference">', 'matrix-difference" lang="en">')
        page_html = facts_in_chinese(formulas_without_language(page_html))
        return wrap_text_terms(page_html, glossary_terms_for(page, config))
    if config.theme["language"] != ZH:
        return page_html
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    head, sep, rest = page_html.partition("</h1>") if "</h1>" in page_html else ("", "", page_html)
    return f'{head}{sep}{ENGLISH_PAGE}<div lang="en">{rest}</div>'


def on_page_context(context, *, page: Page, config: MkDocsConfig, nav):
    """The selector: each language's root (``link``, for its sitemap) and this page there."""
    path = page.url.removeprefix(f"{ZH}/") if page.url != f"{ZH}/" else ""
    for alternate in getattr(config.extra, "alternate", None) or config.extra.get("alternate"):
        alternate["link"] = f"{ZH}/" if alternate["lang"] == ZH else ""
        alternate["page"] = alternate["link"] + path
    return context


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str:
    """A page of the Chinese build loads the Chinese search index (``__config``'s base ``zh/``)."""
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
    """The ``zh/`` search entries to ``zh/search/``, with Material's Chinese settings; the sitemap
    to ``zh/``, where Material reads it."""
    site, index = Path(config.site_dir), Path(config.site_dir) / "search" / "search_index.json"
    if not (site / ZH).is_dir():
        return
    data, t = (
        json.loads(index.read_text(encoding="utf-8")),
        config.theme.get_env()
        .get_template("partials/language.html", None, {"config": {"theme": {"language": ZH}}})
        .module.t,
    )
    lang, sep, pipe = (str(t(f"search.config.{key}")) for key in ("lang", "separator", "pipeline"))
    settings = {
        "lang": [lang],
        "separator": sep,
        "pipeline": re.findall(r"[^\s,]+", pipe),
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
