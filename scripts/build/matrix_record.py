"""The torch matrix's record, read, and the fingerprints it knows a check by.

:mod:`scripts.commands.torch_matrix` writes ``snippets/data/torch_matrix.json`` (it runs the checks
on each covered PyTorch release and CPU kernel path, :mod:`tests.torch_matrix_plugin` recording each
test); the build hook :mod:`scripts.build.matrix_notes` only reads it, through this module, so a
build imports neither the runner nor pytest. A fingerprint says which version of a test's material
was run, so a record can tell a block that changed since it was run from one that only moved:
comments, docstrings and whitespace leave it as it is, a changed number does not.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path

from scripts import ROOT

#: The committed record of the last matrix run.
RECORD = ROOT / "snippets" / "data" / "torch_matrix.json"


#: Nodes whose body may open with a docstring.
_DOCSTRING_HOLDERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _tree_text(node) -> str:
    """A stable text of an AST: node types and field values, without positions or docstrings.
    Fields that are ``None`` or empty lists are left out, so Python releases that add such fields
    (3.12's ``type_params``) or print them differently (``ast.dump`` in 3.13) give the same text."""
    if isinstance(node, list):
        return "[" + ", ".join(map(_tree_text, node)) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    fields = []
    for name, value in ast.iter_fields(node):
        if (name == "body" and isinstance(node, _DOCSTRING_HOLDERS)
                and ast.get_docstring(node, clean=False) is not None):
            value = value[1:]  # a docstring is documentation, not behaviour
        if value is not None and value != []:
            fields.append(f"{name}={_tree_text(value)}")
    return f"{type(node).__name__}({', '.join(fields)})"


@functools.lru_cache(maxsize=4096)
def code_meaning(source: str) -> str:
    """What a piece of Python does, as text that ignores comments, docstrings, blank lines,
    indentation style and line breaks inside brackets: :func:`_tree_text` of its syntax tree.
    Source that is not Python (a shell block, a notebook cell with a ``%magic``) is kept as it is,
    less trailing spaces and blank lines. Remembered by source text for the process, so a
    ``mkdocs serve`` rebuild parses only code that changed."""
    try:
        return _tree_text(ast.parse(source))
    except SyntaxError:
        return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]


def block_fingerprint(code: str, expected_output: str | None) -> str:
    """The fingerprint of a page's code block: 12 hex digits of SHA-256 over the meaning of its
    code (:func:`code_meaning`: a comment or a reflowed line leaves it unchanged, a changed
    number does not) and the exact output the page expects (``None``: no expected output)."""
    return _digest(code_meaning(code), expected_output if expected_output is not None else "\0")


def file_fingerprint(path: Path) -> str:
    """The fingerprint of a file a test runs, 12 hex digits of SHA-256: for a ``.py`` file the
    meaning of its code (:func:`code_meaning`) and the bytes of its ``.out`` golden file (a
    missing ``.out`` adds none); for a notebook the meaning of each code cell, in order (its
    prose and outputs do not change what runs); for any other file its bytes. Raises
    ``OSError`` when the file cannot be read."""
    if path.suffix == ".py":
        golden = path.with_suffix(".out")
        out = golden.read_text(encoding="utf-8") if golden.is_file() else "\0"
        return _digest(code_meaning(path.read_text(encoding="utf-8")), out)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return _digest(*(code_meaning("".join(cell["source"])) for cell in cells
                         if cell["cell_type"] == "code"))
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def recorded(test_id: str, fingerprint: str | None, tests: dict[str, dict]) -> dict | None:
    """The entry of ``tests`` (one release's record) that ran the test ``test_id`` as it is today:
    the same id with the same fingerprint (any entry when ``fingerprint`` is ``None``), or, for a
    page block (``docs/<page>.md::line N``) that the page's prose moved, an entry of the same page
    with the same fingerprint. An id ending in ``::`` (``docs/notebooks/x.ipynb::``) names the
    nbmake test of that file, whatever nbmake calls it. ``None`` when the record has no such
    run."""
    if test_id.endswith("::"):
        test_id = next((t for t in tests if t.startswith(test_id)), test_id)
    entry = tests.get(test_id)
    if entry is not None and (fingerprint is None or entry.get("fingerprint") == fingerprint):
        return entry
    page, sep, name = test_id.partition("::")
    if fingerprint is not None and page.endswith(".md") and sep and name.startswith("line "):
        for other, entry in tests.items():
            if other.startswith(page + "::") and entry.get("fingerprint") == fingerprint:
                return entry
    return None


def load_record(path: Path = RECORD) -> dict:
    """The committed record (``{"pinned": ..., "releases": {release: entry}}``), or an empty one
    when the file does not exist."""
    if not path.exists():
        return {"pinned": None, "releases": {}}
    return json.loads(path.read_text(encoding="utf-8"))
