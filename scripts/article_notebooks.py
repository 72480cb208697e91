"""Every article as a notebook: its page's includes expanded by ``pymdownx.snippets``, its
Markdown read by jupytext.

:func:`article_notebook` reads one page under ``docs/`` and the files it includes, and returns the
notebook and the files it needs; it writes nothing. What becomes what:

* an executed block (a ```` ```python ```` fence) becomes a code cell, the prose Markdown cells;
* a block skipped with ``<!--pytest.mark.skip(reason="…")-->`` is shown, not run, with its reason;
* an included snippet region (``--8<-- "snippets/<page>/<what>.py:region"``) is shown, not run;
  after the last include of a file, one code cell holds that whole file, with ``__file__`` set to
  its path in the repository (paths built from it, ``snippets/data/…``, resolve in the notebook's
  folder), and running it runs the file's checks (its ``main()``: ``__name__`` is ``"__main__"``
  in a kernel), as ``python <file>`` does;
* an included output (``<what>.out``) is shown; an expected output after a block is dropped
  (running the cell prints it);
* content tabs and admonitions become a bold title and their body; ``math`` fences and
  ``#!math`` spans become ``$$…$$`` and ``$…$``; figures keep their light variant; links and
  images point to the published site (``site_url``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import jupytext
import markdown
import nbformat
from pymdownx.snippets import SnippetMissingError

ROOT = Path(__file__).resolve().parents[1]
#: The folder whose files a notebook may read, relative to the repository root.
DATA_DIR = "snippets/data"
#: A content tab, an admonition or a footnote: its body is the indented lines below it.
OPENER = re.compile(r'^(?:(?P<mark>===|!!!|\?\?\?\+?)\s*(?P<kind>[\w-]*)\s*(?:"(?P<title>.*)")?'
                    r"|\[\^[^\]]+\]:)")
#: A fenced block at the start of a line, with the HTML comment on the line above it, if any.
FENCE = re.compile(r"^(?:<!--(?P<mark>.*)-->\n(?:[ \t]*\n)*)?```(?P<lang>\w*).*\n(?P<body>(?s:.*?))^```$",
                   re.M)
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::[\w-]+)?"$')
IMPORT = re.compile(r"^\s*from (snippets[\w.]*) import \(?([\w\s,]+)", re.M)
#: Prose rewrites, in order: (pattern, replacement).
PROSE = [(re.compile(p, re.M), r) for p, r in [
    (r"^.*#only-dark\).*\n?|^///.*\n?|<!--.*?-->", ""),  # dark figures, captions' fences
    (r"#only-light\)", ")"), (r"\)\{[^}\n]*\}", ")"), (r"[ \t]*\{ *#[\w-]+ *\}[ \t]*$", ""),
    (r"`#!math\s+([^`]+?)\s*`", r"$\1$"), (r"\[\^([^\]]+)\]:?", r"<sup>[\1]</sup>")]]


@dataclass
class ArticleNotebook:
    """One article as a notebook: ``name``, the file name (``lookup-tables.ipynb``); ``notebook``
    (nbformat 4); ``data``, each file it reads (POSIX path relative to the notebook,
    ``snippets/data/river_town.txt``, or a snippet module it imports) -> its bytes."""

    name: str
    notebook: nbformat.NotebookNode
    data: dict[str, bytes] = field(default_factory=dict)

    def ipynb_bytes(self) -> bytes:
        """The notebook as the bytes of an ``.ipynb`` file (UTF-8 JSON, one trailing newline)."""
        return (nbformat.writes(self.notebook) + "\n").encode("utf-8")


def _flat(lines: list[str]) -> list[str]:
    """``lines`` with each tab and admonition made a bold title over its dedented body."""
    out, i = [], 0
    while i < len(lines):
        opener = OPENER.match(lines[i])
        if opener and opener["mark"]:
            title = opener["title"] or opener["kind"].capitalize()
            both = opener["mark"] != "===" and opener["kind"] and opener["title"]
            out.append(f"**{opener['kind'].capitalize()}: {title}**" if both else f"**{title}**")
        else:
            out.append(lines[i])
        i += 1
        body = []
        while opener and i < len(lines) and (not lines[i].strip() or lines[i][:4] == "    "):
            body.append(lines[i][4:])
            i += 1
        out += _flat(body)
    return out


def _url(target: str, page: str, site_url: str) -> str:
    """A link target of ``page`` made absolute on the published site; other URLs unchanged."""
    if re.match(r"^([a-z][a-z0-9+.-]*:|//)", target):
        return target
    path, _, fragment = target.partition("#")
    parts: list[str] = []
    for part in (PurePosixPath(page).parent / path if path else PurePosixPath(page)).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    path = "/".join(parts)
    if path.endswith(".md"):  # a page: its directory URL
        path = re.sub(r"(^|/)index/$", r"\1", path.removesuffix(".md") + "/")
    return site_url.rstrip("/") + "/" + path + ("#" + fragment if fragment else "")


def _shipped(code: str, root: Path) -> dict[str, bytes]:
    """The snippet modules that ``code`` imports (``from snippets.a.b import c``), those they
    import, and their packages' ``__init__.py``: path under ``root`` (POSIX) -> bytes."""
    shipped: dict[str, bytes] = {}
    while True:
        found = set()
        for module, names in IMPORT.findall(code):
            folder = module.replace(".", "/")
            found |= {f"{folder}.py", *(f"{folder}/{name}.py" for name in re.findall(r"\w+", names)),
                      *("/".join(folder.split("/")[:k]) + "/__init__.py"
                        for k in range(1, folder.count("/") + 2))}
        found = {p for p in found if p not in shipped and (root / p).is_file()}
        if not found:
            return shipped
        shipped |= {p: (root / p).read_bytes() for p in found}
        code = "\n".join((root / p).read_text("utf-8") for p in sorted(found))


def article_notebook(page: str, site_url: str, root: Path = ROOT) -> ArticleNotebook:
    """The notebook of the article ``docs/<page>`` (``page`` like ``lookup-tables.md``).

    ``site_url`` is the published site's address (``https://…/``). Reads the page and the files
    it includes under ``root``; writes nothing. Raises ``ValueError`` if an included file or
    region is missing.
    """
    text = re.sub(r"\A---\n.*?\n---\n", "", (root / "docs" / page).read_text("utf-8"), flags=re.S)
    text = "\n".join(_flat(text.splitlines()))
    left: dict[str, int] = {}  # per included .py file, its includes still to come
    for m in re.finditer(r'^--8<-- "([^":]+\.py)', text, re.M):
        left[m[1]] = left.get(m[1], 0) + 1

    def fence(m: re.Match) -> str:
        mark, lang, body = m["mark"] or "", m["lang"], m["body"].rstrip("\n")
        includes = [INCLUDE.match(line) for line in body.splitlines()]
        if "expected-output" in mark:
            return ""
        if lang == "math":
            return "$$\n" + (f"\\begin{{gathered}}\n{body}\n\\end{{gathered}}"
                             if "\\\\" in body else body) + "\n$$"
        skip = re.search(r'skip\(reason="(.*)"\)', mark)
        if lang != "python" or not (skip or includes and all(includes)):
            return m[0]
        note = f"*Not run in this notebook: {skip[1]}.*\n\n" if skip else ""
        out = f"<!-- #region -->\n{note}```python\n{body}\n```\n<!-- #endregion -->"
        for path in [i["path"] for i in includes] if not skip else []:
            left[path] -= 1
            if not left[path]:
                out += (f"\n\n*All of `{path}`; running it runs its checks, as `python {path}`"
                        f' does:*\n\n```python\n__file__ = "{path}"  # paths built from it are '
                        f'relative to this folder\n--8<-- "{path}"\n```')
        return out

    text = FENCE.sub(fence, text)
    snippets = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={
        "pymdownx.snippets": {"base_path": [str(root)], "check_paths": True,
                              "dedent_subsections": True}}).preprocessors["snippet"]
    try:
        text = "\n".join(snippets.run(text.split("\n")))
    except SnippetMissingError as error:
        raise ValueError(f"{page}: {error}") from None
    notebook = jupytext.reads(text, fmt="md")
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "source": f"docs/{page} of the site's repository, converted when the site was built"}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for pattern, replacement in PROSE:
                cell.source = pattern.sub(replacement, cell.source)
            cell.source = re.sub(r"\]\(([^)\s]+)\)",
                                 lambda t: f"]({_url(t[1], page, site_url)})", cell.source)
            cell.source = re.sub(r"\n{3,}", "\n\n", cell.source).strip("\n")
    notebook.cells = [c for c in notebook.cells if c.source]
    for n, cell in enumerate(notebook.cells):
        cell.id, cell.metadata = f"cell-{n}", {}  # fixed: the same page gives the same bytes
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    shipped = _shipped(code, root)
    code += "\n".join(content.decode("utf-8") for content in shipped.values())
    data = {f.relative_to(root).as_posix(): f.read_bytes()
            for f in sorted((root / DATA_DIR).glob("*"))
            if f.is_file() and f.name != "README.md" and f.name in code}
    return ArticleNotebook(page.removesuffix(".md") + ".ipynb", notebook, shipped | data)
