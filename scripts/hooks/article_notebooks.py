"""Every article as a notebook (a zip with the files it reads), made by the execute stage
(:func:`converted`) and linked under its title. CONTRIBUTING.md says how blocks become cells."""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import jupytext
import markdown
import nbformat
from mkdocs.exceptions import PluginError
from pymdownx.snippets import SnippetMissingError, SnippetPreprocessor

from scripts import ROOT
from scripts.hooks.cache import contents, key
from scripts.hooks.markdown_blocks import flatten, tokens
from scripts.hooks.page_facts import set_fact

#: This converter and a format (bumped when a download changes without it): in every key.
CONVERTER, ARTICLES_FORMAT = "scripts/hooks/article_notebooks.py", "articles-3"
#: The cell tag that nbclient (and so nbmake) skips: ``NotebookClient.skip_cells_with_tag``.
SKIP_TAG = "skip-execution"
#: The Markdown cell before a cell that needs a CUDA GPU.
CUDA_NOTE = (
    "*Needs a CUDA GPU: run this cell where `torch.cuda.is_available()` is `True`, and "
    f"skip it on a CPU. Its tag `{SKIP_TAG}` makes nbclient and nbmake leave it out.*"
)
IMPORT = re.compile(r"^\s*from (snippets[\w.]*) import \(?([\w\s,]+)", re.M)
#: Rewrites of Markdown cells: dark figures, caption fences and comments go; attribute lists go;
#: ``#!math`` spans and footnotes become what Jupyter shows.
PROSE = [
    (re.compile(p, re.M), r)
    for p, r in [
        (r"^.*#only-dark\).*\n?|^///.*\n?|<!--.*?-->", ""),
        (r"#only-light\)", ")"),
        (r"\)\{[^}\n]*\}", ")"),
        (r"[ \t]*\{ *#[\w-]+ *\}[ \t]*$", ""),
        (r"`#!math\s+([^`]+?)\s*`", r"$\1$"),
        (r"\[\^([^\]]+)\]:?", r"<sup>[\1]</sup>"),
    ]
]


@dataclass
class ArticleNotebook:
    """An article's notebook: its file ``name`` (``x.ipynb``), the ``notebook`` (nbformat 4) and
    the ``data`` it reads, path relative to the notebook (``snippets/data/a.txt``) -> bytes."""

    name: str
    notebook: nbformat.NotebookNode
    data: dict[str, bytes]

    def ipynb_bytes(self) -> bytes:
        """The notebook as the bytes of an ``.ipynb`` file (UTF-8 JSON, one trailing newline)."""
        return (nbformat.writes(self.notebook) + "\n").encode("utf-8")


def _url(target: str, page: str, site_url: str) -> str:
    """A link target of ``page`` made absolute on the published site; other URLs unchanged."""
    if re.match(r"[a-z][a-z0-9+.-]*:|//", target):
        return target
    path, hash_, fragment = target.partition("#")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    if path.endswith(".md"):  # a page: its directory URL
        path = re.sub(r"(^|/)index/$", r"\1", path.removesuffix(".md") + "/")
    return site_url.rstrip("/") + "/" + path + hash_ + fragment


def _prose(text: str, page: str, site_url: str) -> str:
    """``text``, prose of ``page``, rewritten by :data:`PROSE`, links absolute on ``site_url``."""
    for pattern, replacement in PROSE:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\n{3,}", "\n\n", text)  # where a line was left out
    return re.sub(r"\]\(([^)\s]+)\)", lambda m: f"]({_url(m[1], page, site_url)})", text)


def _shipped(code: str, root: Path) -> dict[str, bytes]:
    """The snippet modules ``code`` imports, and those they import: path under ``root`` -> bytes."""
    shipped: dict[str, bytes] = {}
    while found := {
        path
        for module, names in IMPORT.findall(code)
        for folder in [module.replace(".", "/")]
        for path in [f"{folder}.py", *(f"{folder}/{name}.py" for name in re.findall(r"\w+", names))]
        if path not in shipped and (root / path).is_file()
    }:
        shipped |= {path: (root / path).read_bytes() for path in found}
        code = "\n".join((root / path).read_text("utf-8") for path in found)
    return shipped


def _snippets(root: Path) -> SnippetPreprocessor:
    """``pymdownx.snippets``' preprocessor as ``mkdocs.yml`` sets it (less the glossary)."""
    config = {"base_path": [str(root)], "check_paths": True, "dedent_subsections": True}
    return markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": config}
    ).preprocessors["snippet"]


def included(text: str, root: Path = ROOT) -> list[str]:
    """The paths under ``root`` of the files ``text``'s ``--8<--`` lines include, in order."""
    snippets = _snippets(root)
    return [
        snippets.parse_snippet_target(m["snippet"][1:-1])["path"]
        for line in text.split("\n")
        if (m := snippets.RE_ALL_SNIPPETS.match(line)) and m["snippet"] and not m["escape"]
    ]


def _fence(mark: str, info: str, body: str, ran: set[str], root: Path) -> str:
    """The Markdown for a fenced block (``info``, ``body``) below the comment ``mark`` ('' if
    none); ``ran``, the files whose whole-file cell comes later (last block first), gets its."""
    lang, body = (info.split() or [""])[0], body.rstrip("\n")
    skip = re.search(r'skip\(reason="(.*)"\)', mark)
    if "expected-output" in mark:
        return ""  # running the block above prints it
    if lang == "math":  # Jupyter's MathJax breaks lines only inside an environment
        return (
            "$$\n"
            + (f"\\begin{{gathered}}\n{body}\n\\end{{gathered}}" if "\\\\" in body else body)
            + "\n$$"
        )
    if lang == "python" and "pytest.mark.cuda" in mark:
        return f'{CUDA_NOTE}\n\n```python tags=["{SKIP_TAG}"]\n{body}\n```'
    paths = included(body, root)
    if lang != "python" or not (skip or paths and len(paths) == len(body.splitlines())):
        return f"```{info}\n{body}\n```"
    out = "<!-- #region -->\n" + (f"*Not run in this notebook: {skip[1]}.*\n\n" if skip else "")
    out += f"```python\n{body}\n```\n<!-- #endregion -->"
    for path in [] if skip else [path for path in paths if path not in ran]:
        ran.add(path)
        out += (
            f"\n\n*All of `{path}`; running it runs its checks, as `python {path}` does:*"
            f'\n\n```python\n__file__ = "{path}"  # paths built from it are relative to this '
            f'folder\n--8<-- "{path}"\n```'
        )
    return out


def article_notebook(page: str, site_url: str, root: Path = ROOT) -> ArticleNotebook:
    """The notebook of ``docs/<page>`` under ``root``, its links on ``site_url`` (``https://…/``).
    Raises ``ValueError`` if an included file or region is missing."""
    text = re.sub(r"\A---\n.*?\n---\n", "", (root / "docs" / page).read_text("utf-8"), flags=re.S)
    text = flatten(text)
    lines, found = text.split("\n"), tokens(text)
    parts, end, ran = [], len(lines), set()
    for before, token in reversed(list(zip([None, *found[:-1]], found, strict=True))):
        if token.type == "fence" and token.level == 0:  # the last block first
            comment = before and before.type == "html_block" and before.content.startswith("<!--")
            mark = before.content if comment else ""
            parts += [
                _prose("\n".join(lines[token.map[1] : end]), page, site_url),
                _fence(mark, token.info, token.content, ran, root),
            ]
            end = before.map[0] if mark else token.map[0]
    parts.append(_prose("\n".join(lines[:end]), page, site_url))
    text = "\n\n".join(part.strip("\n") for part in reversed(parts) if part.strip())
    try:
        lines = _snippets(root).run(text.split("\n"))
    except SnippetMissingError as error:
        raise ValueError(f"{page}: {error}") from None
    notebook = jupytext.reads("\n".join(lines), fmt="md")
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "source": f"docs/{page} of the site's repository, converted when the site was built",
    }
    for cell in notebook.cells:
        cell.source = cell.source.strip("\n")
    notebook.cells = [cell for cell in notebook.cells if cell.source]
    for n, cell in enumerate(notebook.cells):  # fixed: the same page gives the same bytes
        tags = [SKIP_TAG] if SKIP_TAG in cell.metadata.get("tags", []) else []
        cell.id, cell.metadata = f"cell-{n}", {"tags": tags} if tags else {}
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    shipped = _shipped(code, root)
    code += "\n".join(content.decode("utf-8") for content in shipped.values())
    data = {
        f.relative_to(root).as_posix(): f.read_bytes()
        for f in sorted((root / "snippets" / "data").glob("*"))
        if f.is_file() and f.name != "README.md" and f.name in code
    }
    return ArticleNotebook(page.removesuffix(".md") + ".ipynb", notebook, shipped | data)


def articles(nav: list) -> list[str]:
    """The pages (paths under docs/) listed in the ``Articles`` section of a ``nav`` config."""
    section = next((i["Articles"] for i in nav if isinstance(i, dict) and "Articles" in i), [])
    return [next(iter(p.values())) if isinstance(p, dict) else p for p in section]


def downloads(article: ArticleNotebook) -> dict[str, bytes]:
    """File name -> bytes of what a reader downloads: ``x.ipynb``, or with the files it reads a zip
    under ``x/`` (``x.zip``; entries sorted, dated 1980-01-01, mode 0644: the same bytes again)."""
    folder, files = article.name.removesuffix(".ipynb"), {article.name: article.ipynb_bytes()}
    if not article.data:
        return files
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in sorted((files | article.data).items()):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr, info.compress_type = 0o644 << 16, zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return {f"{folder}.zip": buffer.getvalue()}


def article_key(root: Path, page: str, site_url: str) -> str:
    """The cache key of ``page``'s download: ``site_url`` and every file its conversion may read
    (the page, the files it includes, everything under ``snippets/``, :data:`CONVERTER`)."""
    text = (root / "docs" / page).read_text(encoding="utf-8")
    paths = {
        root / "docs" / page,
        root / CONVERTER,
        *(root / "snippets").rglob("*"),
        *(root / path for path in included(text, root)),
    }
    return key(ARTICLES_FORMAT, site_url, *contents(root, paths))


def converted(page: str, site_url: str, root: Path) -> dict[str, bytes]:
    """:func:`downloads` of ``page``, in the page's folder (``x/x.zip``). Raises ``PluginError``
    naming the page when it cannot be converted."""
    try:
        files = downloads(article_notebook(page, site_url, root))
    except (ValueError, OSError, SyntaxError) as err:
        raise PluginError(f"notebook of {page}: {err}") from None
    return {f"{page.removesuffix('.md')}/{name}": content for name, content in files.items()}


def on_page_content(html, *, page, config, files):
    """Put the article's download on the page as the first of its facts (MkDocs event; a Chinese
    page links its English page's): :func:`scripts.hooks.page_facts.set_fact`, ``download``."""
    folder = (getattr(page.file, "norm_src_uri", None) or page.file.src_uri)[:-3] + "/"
    for file in files:
        made_here = file.generated_by and file.src_uri.startswith(folder)
        if made_here and file.src_uri.endswith((".ipynb", ".zip")):
            name = file.src_uri.removeprefix(folder)
            what = "article with files" if name.endswith(".zip") else "article"
            href = file.url_relative_to(page.file)
            set_fact(page, "download", {"what": what, "href": href, "name": name})
            break
    return html
