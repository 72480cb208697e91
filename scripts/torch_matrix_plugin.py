"""pytest plugin of the torch matrix: one outcome and one fingerprint per test id, as JSON.

Loaded with ``-p scripts.torch_matrix_plugin`` by ``python -m scripts.torch_matrix`` (which runs
the test selection once per covered PyTorch release) and by ``tests/test_torch_matrix.py`` (which
only collects). With the environment variable ``TORCH_MATRIX_OUT`` set to a file path, the
controlling pytest process (not an xdist worker) writes there, at the end of the session::

    {"collected": {test id: fingerprint or null},
     "outcomes": {test id: {"outcome": "passed" | "failed" | "skipped", "message": str,
                            "fingerprint": str}}}

``collected`` is filled without xdist (``--collect-only`` in particular; with xdist the workers
collect), ``outcomes`` when tests run. ``message`` (failed and skipped only) is the first line of
the error, as ``Type: text``, or the skip reason. A fingerprint says which version of a test's
material was run (see :func:`fingerprint`), so a record can tell a block that changed since it
was run from one that only moved.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUT_VARIABLE = "TORCH_MATRIX_OUT"
#: Longest failure or skip message kept in the record (characters).
MESSAGE_LENGTH = 240
#: How pytest-codeblocks reports a block whose printed output is not the page's.
OUTPUT_MISMATCH = re.compile(
    r"Expected output\n```\n(?P<shown>.*?)```\nbut got\n```\n(?P<printed>.*)```", re.DOTALL
)


#: Nodes whose body may open with a docstring.
_DOCSTRING_HOLDERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(node: ast.AST) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _tree_text(node: ast.AST) -> str:
    """A stable text of an AST: node types and field values, without positions. Fields that are
    ``None`` or empty lists are left out, so Python releases that add such fields (3.12's
    ``type_params``) or print them differently (``ast.dump`` in 3.13) give the same text."""
    if isinstance(node, ast.AST):
        body = getattr(node, "body", None)
        fields = []
        for name, value in ast.iter_fields(node):
            if (name == "body" and isinstance(node, _DOCSTRING_HOLDERS) and body
                    and _is_docstring(body[0])):
                value = body[1:]  # a docstring is documentation, not behaviour
            if value is None or value == []:
                continue
            fields.append(f"{name}={_tree_text(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(_tree_text(item) for item in node) + "]"
    return repr(node)


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
    number does not) and the exact output the page expects (``None``: no expected output).
    Shared with the build hook."""
    return _digest(code_meaning(code), expected_output if expected_output is not None else "\0")


def file_fingerprint(path: Path) -> str:
    """The fingerprint of a file a test runs, 12 hex digits of SHA-256: for a ``.py`` file the
    meaning of its code (:func:`code_meaning`) and the bytes of its ``.out`` golden file (a
    missing ``.out`` adds none); for a notebook the meaning of each code cell, in order (its
    prose and outputs do not change what runs); for any other file its bytes."""
    if path.suffix == ".py":
        golden = path.with_suffix(".out")
        out = golden.read_text(encoding="utf-8") if golden.is_file() else "\0"
        return _digest(code_meaning(path.read_text(encoding="utf-8")), out)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return _digest(*(code_meaning("".join(cell["source"])) for cell in cells
                         if cell["cell_type"] == "code"))
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def fingerprint(item: pytest.Item) -> str | None:
    """What an item runs, hashed: a pytest-codeblocks block (code and expected output), a file
    under the repository given as the test's ``path`` parameter, or a notebook collected by
    nbmake. ``None`` for any other test (its id alone identifies it)."""
    block = getattr(item, "obj", None)
    if type(item).__name__ == "TestBlock" and hasattr(block, "code"):
        return block_fingerprint(block.code, block.expected_output)
    params = getattr(getattr(item, "callspec", None), "params", {})
    path = params.get("path")
    if isinstance(path, Path) and path.is_file():
        return file_fingerprint(path)
    if item.path.suffix == ".ipynb":
        return file_fingerprint(item.path)
    return None


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, cut to :data:`MESSAGE_LENGTH` characters."""
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return line[:MESSAGE_LENGTH]


def _error_message(item: pytest.Item, excinfo: pytest.ExceptionInfo) -> str:
    """``Type: first line`` of the error that failed ``item``. pytest-codeblocks wraps a block's
    error in a ``RuntimeError`` that repeats the block's code: the original error is its context;
    a wrong printed output is given by its first line that differs from the page's."""
    error = excinfo.value
    if type(item).__name__ == "TestBlock":
        if error.__context__ is not None:
            error = error.__context__
        elif mismatch := OUTPUT_MISMATCH.search(str(error)):
            return output_difference(mismatch["shown"], mismatch["printed"])
    return first_line(f"{type(error).__name__}: {error}")


def output_difference(shown: str, printed: str) -> str:
    """``prints "<line>" where the page shows "<line>"``: the first line that differs between the
    output a page shows and the output its block printed (one line, shortened to fit)."""
    shown_lines, printed_lines = shown.splitlines(), printed.splitlines()
    for n in range(max(len(shown_lines), len(printed_lines))):
        a = shown_lines[n].strip() if n < len(shown_lines) else "(nothing)"
        b = printed_lines[n].strip() if n < len(printed_lines) else "(nothing)"
        if a != b:
            half = MESSAGE_LENGTH // 2 - 20
            short = [s if len(s) <= half else s[: half - 1] + "…" for s in (b, a)]
            return f'prints "{short[0]}" where the page shows "{short[1]}"'
    return "printed output differs from the page's in whitespace only"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the item's fingerprint to its reports, and the error's first line to a failing
    one (user properties travel from xdist workers to the controlling process)."""
    outcome = yield
    report = outcome.get_result()
    print_ = fingerprint(item)
    if print_ is not None:
        report.user_properties.append(("torch_matrix_fingerprint", print_))
    if report.failed and call.excinfo is not None:
        report.user_properties.append(("torch_matrix_message", _error_message(item, call.excinfo)))


class Recorder:
    """Collects test ids, fingerprints and outcomes in the controlling process."""

    def __init__(self, out: Path):
        self.out = out
        self.collected: dict[str, str | None] = {}
        self.outcomes: dict[str, dict[str, str]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        self.collected = {item.nodeid: fingerprint(item) for item in items}

    def pytest_deselected(self, items):
        for item in items:
            self.collected.pop(item.nodeid, None)

    def pytest_runtest_logreport(self, report):
        entry = self.outcomes.get(report.nodeid)
        if report.when == "call" or (report.when == "setup" and not report.passed):
            entry = {"outcome": report.outcome}
        elif report.when == "teardown" and report.failed:
            entry = {"outcome": "failed"}
        else:
            return
        props = dict(report.user_properties)
        if "torch_matrix_fingerprint" in props:
            entry["fingerprint"] = props["torch_matrix_fingerprint"]
        if report.failed:
            entry["message"] = props.get("torch_matrix_message") or first_line(
                getattr(getattr(report.longrepr, "reprcrash", None), "message", "")
                or report.longreprtext
            )
        elif report.skipped:
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            entry["message"] = first_line(reason.removeprefix("Skipped: "))
        self.outcomes[report.nodeid] = entry

    def pytest_sessionfinish(self, session):
        self.out.write_text(json.dumps({
            "collected": self.collected,
            "outcomes": self.outcomes,
        }, indent=1, sort_keys=True), encoding="utf-8")


def pytest_configure(config):
    """Register the recorder in the controlling process when ``TORCH_MATRIX_OUT`` is set."""
    out = os.environ.get(OUT_VARIABLE)
    if out and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(Path(out)), "torch_matrix_recorder")
