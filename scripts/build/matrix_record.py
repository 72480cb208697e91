"""The torch matrix's record (``python -m scripts torch-matrix`` writes it), read, and the
fingerprints of its checks: a comment or docstring leaves one as it is, a changed number not."""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path

RECORD = Path("snippets", "data", "torch_matrix.json")  # in the project's folder
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)  # have docstrings


def _tree_text(node) -> str:
    """An AST as text: node types and fields, less positions, docstrings and ``None`` or empty
    fields (which Python releases add or print differently)."""
    if isinstance(node, list):
        return "[" + ", ".join(map(_tree_text, node)) + "]"
    if not isinstance(node, ast.AST):
        return repr(node)
    fields = []
    for name, value in ast.iter_fields(node):
        if (name == "body" and isinstance(node, DOCUMENTED)
                and ast.get_docstring(node, clean=False) is not None):
            value = value[1:]  # a docstring is documentation, not behaviour
        if value is not None and value != []:
            fields.append(f"{name}={_tree_text(value)}")
    return f"{type(node).__name__}({', '.join(fields)})"


@functools.lru_cache(maxsize=4096)
def code_meaning(source: str) -> str:
    """What ``source`` does: :func:`_tree_text` of its syntax tree; if not Python, its text."""
    try:
        return _tree_text(ast.parse(source))
    except SyntaxError:
        return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:12]


def block_fingerprint(code: str, expected_output: str | None) -> str:
    """A block's fingerprint: SHA-256 of its code's meaning and the output the page expects."""
    return _digest(code_meaning(code), expected_output if expected_output is not None else "\0")


def file_fingerprint(path: Path) -> str:
    """A file's fingerprint: of a ``.py`` file's meaning and ``.out`` golden file, a notebook's
    code cells' meanings, or another file's bytes. Raises ``OSError``."""
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
    """The entry of ``tests`` (a run's) that ran ``test_id`` as it is today (same fingerprint,
    any for ``None``; a page's block may have moved; ``x.ipynb::``: its nbmake test) or ``None``."""
    if test_id.endswith("::"):
        test_id = next((t for t in tests if t.startswith(test_id)), test_id)
    entry = tests.get(test_id)
    if entry is not None and (fingerprint is None or entry.get("fingerprint") == fingerprint):
        return entry
    page, _, name = test_id.partition("::")
    if fingerprint is not None and page.endswith(".md") and name.startswith("line "):
        return next((entry for other, entry in tests.items() if other.startswith(page + "::")
                     and entry.get("fingerprint") == fingerprint), None)
    return None


@functools.lru_cache(maxsize=64)
def parsed(path: Path, mtime_ns: int, parse=json.loads):
    """``parse`` of ``path``'s text, kept by ``mtime_ns`` (``mkdocs serve`` reads an edit again)."""
    return parse(path.read_text(encoding="utf-8"))


def read_record(root: Path) -> dict:
    """The record of the project at ``root``; ``{}`` when it has none."""
    path = root / RECORD
    return parsed(path, path.stat().st_mtime_ns) if path.exists() else {}
