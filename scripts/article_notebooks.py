"""Every article as a notebook: its Markdown page turned into a Jupyter notebook, with jupytext.

:func:`article_notebook` is a pure function of the repository's files: it reads one page under
``docs/`` (and the snippet files the page includes) and returns the notebook and the data files it
needs. It builds nothing and writes nothing, so ``tests/test_article_notebooks.py`` can execute
each notebook without building the site; ``scripts/hooks/article_notebooks.py`` puts the same
bytes into the site when it builds.

What becomes what:

* an executed block (a bare ```` ```python ```` fence, as pytest-codeblocks collects it) becomes a
  code cell; the prose around it becomes Markdown cells;
* a block skipped with ``<!--pytest.mark.skip(reason="…")-->`` becomes a Markdown cell that shows
  the code and says why it is not run (a notebook for a CPU must not fail on a GPU-only block);
* an included snippet region (``--8<-- "snippets/<page>/<what>.py:region"``) becomes a code cell
  holding that region. Regions are parts of the file's ``main()``; the names they use from the
  rest of the file (imports, constants, helper functions) come from one code cell inserted before
  the first region of each file: the file without its ``main()`` and ``__main__`` guard, with
  ``__file__`` set to the file's path in the repository, so that paths the file builds from it
  (``snippets/data/…``) resolve against the notebook's folder;
* an included output (``<what>.out``) is shown as text, an expected output after an executed
  block is dropped (running the cell prints it);
* content tabs and admonitions are flattened to a bold title and their body; ``math`` fences and
  ``#!math`` spans become ``$$…$$`` and ``$…$`` (Jupyter renders them with MathJax); figures keep
  their light variant, and links and images point to the published site (``site_url``), since the
  notebook is read outside it.

Data files: every file under ``snippets/data/`` whose name occurs in the notebook's code is
returned, keyed by its path relative to the notebook (``snippets/data/river_town.txt``).
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import jupytext
import nbformat

from scripts.markdown_math import split_lines
from scripts.markdown_model import (
    EXPECTED_OUTPUT,
    HEADING,
    REGION_MARKER,
    ROOT,
    SKIP_WITH_REASON,
    fence_at,
    include_of,
    include_spec,
    included_text,
)

#: The folder whose files a notebook may read, relative to the repository root.
DATA_DIR = "snippets/data"
#: Opens a content tab (``=== "Label"``) or an admonition (``!!! kind "Title"``, ``??? …``).
CONTAINER = re.compile(
    r'^(?P<marker>===|!!!|\?\?\?\+?)\s*(?P<kind>[\w-]*)\s*(?:"(?P<title>[^"]*)")?'
)
FOOTNOTE_DEF = re.compile(r"^\[\^(?P<name>[^\]]+)\]:\s*(?P<text>.*)$")
FOOTNOTE_REF = re.compile(r"\[\^(?P<name>[^\]]+)\](?!:)")
INLINE_MATH = re.compile(r"`#!math\s+([^`]+)`")
#: A Markdown link or image target: ``](target)`` (no spaces, as the pages write them).
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
#: An image alone on its line, with an optional attribute list (``{ loading=lazy }``).
FIGURE = re.compile(r"^(?P<image>\s*!\[[^\]]*\]\([^)\s]+\))\s*(?:\{[^}]*\})?\s*$")
FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?)\n---\n", re.S)


@dataclass
class ArticleNotebook:
    """One article as a notebook.

    ``name`` is the notebook's file name (``lookup-tables.ipynb``); ``notebook`` the notebook
    (nbformat 4); ``data`` maps each data file's path relative to the notebook (POSIX,
    ``snippets/data/river_town.txt``) to its bytes.
    """

    name: str
    notebook: nbformat.NotebookNode
    data: dict[str, bytes] = field(default_factory=dict)

    def ipynb_bytes(self) -> bytes:
        """The notebook as the bytes of an ``.ipynb`` file (UTF-8 JSON, one trailing newline)."""
        return (nbformat.writes(self.notebook) + "\n").encode("utf-8")


@dataclass
class _Cells:
    """Cells collected in order: ``("markdown" | "code", text)``; adjacent Markdown merges."""

    cells: list[tuple[str, str]] = field(default_factory=list)

    def markdown(self, text: str) -> None:
        if not text.strip():
            return
        if self.cells and self.cells[-1][0] == "markdown":
            merged = self.cells[-1][1].rstrip("\n") + "\n\n" + text.strip("\n")
            self.cells[-1] = ("markdown", merged)
        else:
            self.cells.append(("markdown", text.strip("\n")))

    def code(self, text: str) -> None:
        self.cells.append(("code", text.strip("\n")))


def _page_url(site_url: str, page: str) -> str:
    """The published URL of ``page`` (a path under docs/, ``a/b.md``), directory URLs."""
    stem = page.removesuffix(".md")
    path = "" if stem == "index" else stem.removesuffix("/index") + "/"
    return site_url.rstrip("/") + "/" + path


def _absolute(target: str, page: str, site_url: str) -> str:
    """A link target of ``page`` made absolute on the published site; other URLs unchanged."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return target
    path, _, fragment = target.partition("#")
    fragment = "#" + fragment if fragment else ""
    if not path:
        return _page_url(site_url, page) + fragment
    resolved = PurePosixPath(page).parent / path
    parts: list[str] = []
    for part in resolved.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    joined = "/".join(parts)
    if joined.endswith(".md"):
        return _page_url(site_url, joined) + fragment
    return site_url.rstrip("/") + "/" + joined + fragment


def _prose(line: str, page: str, site_url: str) -> str | None:
    """One line of prose as the notebook shows it, or None to leave it out."""
    figure = FIGURE.match(line)
    if figure:  # the light variant stands for both; its attribute list is the site's
        if figure["image"].endswith("#only-dark)"):
            return None
        line = figure["image"]
    if COMMENT.match(line):
        return None
    if line.strip() == "///":
        return None
    if line.strip() == "/// caption":
        return ""
    heading = HEADING.match(line)
    if heading and heading["attrs"] is not None:  # an attribute list the notebook cannot use
        line = f"{heading['hashes']} {heading['title']}"
    line = INLINE_MATH.sub(lambda m: f"${m[1].strip()}$", line)
    line = FOOTNOTE_REF.sub(lambda m: f"<sup>[{m['name']}]</sup>", line)
    line = LINK.sub(lambda m: "](" + _absolute(m["target"], page, site_url) + ")", line)
    return line.replace("#only-light)", ")")


def _main_lines(path: str, root: Path = ROOT) -> tuple[int, int]:
    """The first and last line (1-based) of ``main()`` in ``path``, decorators included.

    Raises ``ValueError`` if ``path`` has no top-level ``main()``.
    """
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            return min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno
    raise ValueError(f"{path} has no main(): it is not a snippet file")


def _snippet_prelude(path: str, root: Path = ROOT) -> tuple[str, list[str]]:
    """The source of ``path`` (a ``snippets/`` file) without ``main()`` and the ``__main__`` guard.

    Returns the cell's text and the other snippet files it imports from
    (``from snippets.a.b import x`` lines, which the text turns into comments: the notebook
    defines those names in an earlier cell). Raises ``ValueError`` if the file has no ``main()``.
    """
    source = (root / path).read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    first_main, last_main = _main_lines(path, root)
    drop = [(first_main, last_main)]
    imports: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            drop.append((node.lineno, node.end_lineno))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("snippets."):
            module = node.module.replace(".", "/") + ".py"
            if not (root / module).is_file():
                continue  # ``from snippets.pkg import module``: shipped with the notebook
            imports.append(module)
            names = ", ".join(a.name for a in node.names)
            lines[node.lineno - 1] = f"# {names}: from {module}, in a cell above"
            for n in range(node.lineno, node.end_lineno):
                lines[n] = None
    kept = [
        ln for i, ln in enumerate(lines, 1)
        if ln is not None and not any(a <= i <= b for a, b in drop)
    ]
    body = re.sub(r"\n{3,}", "\n\n\n", "\n".join(kept)).strip("\n")
    header = (
        f"# The rest of {path} (its imports and helpers), which the regions below use.\n"
        f'__file__ = "{path}"  # its place in the repository: paths built from it are relative\n'
    )
    future = re.match(r'(?s)((?:""".*?"""\n+)?)(from __future__ import [^\n]+\n)', body + "\n")
    if future:  # a __future__ import must open the cell
        rest = (future[1] + (body + "\n")[future.end():]).strip("\n")
        return future[2] + header + rest, imports
    return header + body, imports


def _bound(code: str) -> set[str]:
    """Names that ``code`` (a cell) binds at its top level (not inside its functions)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(code))
    return names


def _read(code: str) -> set[str]:
    """Names that ``code`` (a cell) reads anywhere, its function bodies included."""
    return {
        n.id for n in ast.walk(ast.parse(code))
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _statements_binding(path: str, names: set[str], root: Path = ROOT) -> str:
    """The module-level statements of ``path`` (outside ``main()``) that bind any of ``names``."""
    source = (root / path).read_text(encoding="utf-8")
    chosen = [
        ast.get_source_segment(source, node)
        for node in ast.parse(source).body
        if not (isinstance(node, ast.FunctionDef) and node.name == "main")
        and _bound(ast.get_source_segment(source, node)) & names
    ]
    return "\n".join(chosen)


class _Converter:
    """Turns the lines of one page into cells (see the module docstring)."""

    def __init__(self, page: str, site_url: str, root: Path):
        self.page = page
        self.root = root
        self.site_url = site_url
        self.out = _Cells()
        self.preludes: set[str] = set()
        self.code_text: list[str] = []
        #: Who bound each global name last: ``"page"`` or a snippet file's path.
        self.owner: dict[str, str] = {}
        #: Per snippet file, the names its prelude binds and the names its regions bind.
        self.prelude_names: dict[str, set[str]] = {}
        self.region_names: dict[str, set[str]] = {}
        self.imported: dict[str, set[str]] = {}
        #: Per snippet file, how many of the page's includes of it are still to come.
        self.pending: dict[str, int] = {}
        #: Snippet files of which a region of ``main()`` ran as a cell.
        self.ran: set[str] = set()
        #: Snippet files whose ``main()`` regions cannot run one by one (see :meth:`region`).
        self.piecewise_off: set[str] = set()

    def code(self, text: str, owner: str = "page") -> None:
        self.out.code(text)
        self.code_text.append(text)
        for name in _bound(text):
            self.owner[name] = owner

    def prelude(self, path: str) -> None:
        """Emit the cell of ``path``'s helpers (and first those of the files it imports)."""
        if path in self.preludes:
            return
        self.preludes.add(path)
        text, imports = _snippet_prelude(path, self.root)
        for module in imports:
            self.prelude(module)
        self.prelude_names[path] = _bound(text)
        self.imported[path] = {
            (a.asname or a.name).split(".")[0]
            for node in ast.parse(text).body if isinstance(node, (ast.Import, ast.ImportFrom))
            for a in node.names
        }  # a page block that imports torch binds the same module: nothing to restore
        self.region_names[path] = set()
        self.code(text, owner=path)

    def region(self, spec: str) -> None:
        """Emit the region ``path:name``: a code cell if it is part of ``main()``, else shown.

        A region inside ``main()`` runs as a cell. Before it, the file's own values are bound
        again for any name that a page block has rebound since (page blocks run with their own
        globals in the tests, but share the notebook's). Raises ``ValueError`` when a region
        needs a value of an earlier region that a page block has since replaced.
        """
        path, _, name = spec.partition(":")
        self.pending[path] = self.pending.get(path, 1) - 1
        self._region(path, name, spec)
        if self.pending[path] == 0 and (path not in self.ran or path in self.piecewise_off):
            # No region of main() ran: run the whole file's main(), as the tests do.
            first, last = _main_lines(path, self.root)
            lines = (self.root / path).read_text(encoding="utf-8").splitlines()[first - 1:last]
            body = "\n".join(ln for ln in lines if not REGION_MARKER.search(ln))
            self.out.markdown(f"*The checks of `{path}`, run as `python {path}` runs them:*")
            self.code(body + "\n\n\nmain()", owner=path)
            self.ran.add(path)

    def _region(self, path: str, name: str, spec: str) -> None:
        text = included_text(include_spec(spec), self.root)
        start, end = _main_lines(path, self.root)
        source = (self.root / path).read_text(encoding="utf-8")
        line = next(
            (i for i, ln in enumerate(source.splitlines(), 1)
             if (m := REGION_MARKER.search(ln)) and m["edge"] == "start" and m["name"] == name),
            start,
        )
        if not name or not start <= line <= end:
            self.out.markdown(
                f"*From `{path}`; it runs as part of the cell that defines that file's helpers.*"
                "\n\n" + "\n".join(["```python", text.rstrip("\n"), "```"])
            )
            return
        reads = _read(text)
        known = (self.prelude_names[path] | self.region_names[path] | _bound(text)
                 | set(dir(builtins)))
        if path in self.piecewise_off or reads - known:
            # The region reads a name that main() binds outside any region (a `with` around
            # it, say): it cannot run alone. Show it; main() runs after the file's last region.
            self.piecewise_off.add(path)
            self.out.markdown(
                f"*From `main()` in `{path}`, which runs in full below.*\n\n"
                + "\n".join(["```python", text.rstrip("\n"), "```"])
            )
            return
        stale = {
            n for n in reads
            if n in self.prelude_names[path] - self.imported[path] and self.owner.get(n) != path
        }
        lost = {n for n in reads if n in self.region_names[path] and self.owner.get(n) != path}
        if lost:
            raise ValueError(
                f"{self.page}: region {spec} reads {sorted(lost)}, which a block on the page "
                "rebinds after an earlier region of the same file set it; rename it in one of them"
            )
        if stale:
            self.code(
                f"# A block above rebinds {', '.join(sorted(stale))}: {path}'s values again.\n"
                + _statements_binding(path, stale, self.root),
                owner=path,
            )
        self.region_names[path] |= _bound(text)
        self.code(text, owner=path)
        self.ran.add(path)

    def fence(self, info: str, body: list[str], before: str, fence: str) -> None:
        """One fenced block, its info string, its lines and the line above it."""
        includes = [include_of(ln) for ln in body if ln.strip()]
        is_include = bool(includes) and all(includes)
        skip = SKIP_WITH_REASON.search(before)
        lang = info.split()[0] if info else ""
        if info == "python" and fence.startswith("`") and not before.startswith("<!--pytest.mark"):
            self.code("\n".join(body))
        elif lang in ("python", "py") and skip:
            self.out.markdown(
                f"*Not run in this notebook: {skip['reason'].strip()}.*\n\n"
                + "\n".join(["```python", *body, "```"])
            )
        elif info == "text" and EXPECTED_OUTPUT.search(before):
            return  # running the cell above prints it
        elif is_include and lang in ("python", "py"):
            for include in includes:
                self.prelude(include.path)
                self.region(include.spec)
        elif is_include:
            text = "".join(included_text(include, self.root) for include in includes)
            self.out.markdown("\n".join([f"```{lang}", text.rstrip("\n"), "```"]))
        elif lang == "math":  # Jupyter's MathJax breaks lines inside an environment
            lines = split_lines("\n".join(body))
            if len(lines) > 1:
                body = ["\\begin{gathered}", " \\\\\n".join(lines), "\\end{gathered}"]
            self.out.markdown("\n".join(["$$", *body, "$$"]))
        else:
            self.out.markdown("\n".join([f"```{info}", *body, "```"]))

    def convert(self, lines: list[str]) -> None:
        """Convert ``lines`` (a page, or the dedented body of a tab or an admonition)."""
        prose: list[str] = []
        before = ""
        i = 0

        def flush() -> None:
            self.out.markdown("\n".join(prose))
            prose.clear()

        while i < len(lines):
            line = lines[i]
            fence = fence_at(lines, i) if not line.startswith("    ") else None
            container = CONTAINER.match(line)
            footnote = FOOTNOTE_DEF.match(line)
            if fence is not None:
                flush()
                self.fence(fence.info, fence.body, before, fence.fence)
                before, i = "", fence.end_line
                continue
            if container or footnote:
                flush()
                nested, i = [], i + 1
                while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                    nested.append(lines[i][4:])
                    i += 1
                if container:
                    title = container["title"] or container["kind"].capitalize()
                    if container["marker"] != "===" and container["kind"] and container["title"]:
                        title = f"{container['kind'].capitalize()}: {title}"
                    self.out.markdown(f"**{_prose(title, self.page, self.site_url)}**")
                    self.convert(nested)
                else:
                    first = _prose(footnote["text"], self.page, self.site_url) or ""
                    rest = [_prose(ln, self.page, self.site_url) or "" for ln in nested]
                    prose.append(f"<sup>[{footnote['name']}]</sup> {first} " + " ".join(
                        r.strip() for r in rest if r.strip()
                    ))
                    prose.append("")
                before = ""
                continue
            shown = _prose(line, self.page, self.site_url)
            if line.strip():
                before = line.strip()
            if shown is not None:
                prose.append(shown)
            i += 1
        flush()


def _shipped_modules(code: str, root: Path) -> list[str]:
    """Snippet modules that ``code`` imports (``from snippets.pkg.mod import name`` in a page's
    block, ``from snippets.pkg import mod``), with the snippet modules those import and the
    packages' ``__init__.py`` files, as paths under ``root``, sorted. The notebook imports them as
    in the repository, so they travel with it."""
    found: set[str] = set()
    todo = [code]  # a helpers cell turns its own snippet imports into comments: not shipped
    while todo:
        text = todo.pop()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("snip"):
                continue
            folder = node.module.replace(".", "/")
            paths = [f"{folder}/{a.name}.py" for a in node.names] + [f"{folder}.py"]
            for path in paths:
                if (root / path).is_file() and path not in found:
                    found.add(path)
                    todo.append((root / path).read_text(encoding="utf-8"))
    packages = {
        "/".join(PurePosixPath(p).parts[:n]) + "/__init__.py"
        for p in found for n in range(1, len(PurePosixPath(p).parts))
    }
    return sorted(found | {p for p in packages if (root / p).is_file()})


def article_notebook(page: str, site_url: str, root: Path = ROOT) -> ArticleNotebook:
    """The notebook of the article ``docs/<page>`` (``page`` like ``lookup-tables.md``).

    ``site_url`` is the published site's address (``https://…/``), for links and figures. Reads
    the page and the snippet and data files it uses under ``root``; writes nothing. Raises
    ``ValueError`` if an included snippet region or file is missing.
    """
    text = (root / "docs" / page).read_text(encoding="utf-8")
    text = FRONT_MATTER.sub("", text, count=1)
    converter = _Converter(page, site_url, root)
    for include in (include_of(ln) for ln in text.splitlines()):
        if include and include.path.endswith(".py"):
            converter.pending[include.path] = converter.pending.get(include.path, 0) + 1
    converter.convert(text.splitlines())
    parts = []
    for kind, body in converter.out.cells:
        if kind == "code":
            parts.append(f"```python\n{body}\n```")
        else:
            parts.append(f"<!-- #region -->\n{body}\n<!-- #endregion -->")
    notebook = jupytext.reads("\n\n".join(parts) + "\n", fmt="md")
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "source": f"docs/{page} of the site's repository, converted when the site was built",
    }
    for n, cell in enumerate(notebook.cells):
        cell.id = f"cell-{n}"  # stable ids: the same page gives the same bytes
        cell.metadata = {}
    shipped = _shipped_modules("\n".join(converter.code_text), root)
    code = "\n".join(converter.code_text + [(root / m).read_text("utf-8") for m in shipped])
    data = {m: (root / m).read_bytes() for m in shipped}
    data |= {
        f.relative_to(root).as_posix(): f.read_bytes()
        for f in sorted((root / DATA_DIR).glob("*"))
        if f.is_file() and f.name != "README.md" and f.name in code
    }
    return ArticleNotebook(page.removesuffix(".md") + ".ipynb", notebook, data)
