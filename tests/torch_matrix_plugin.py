"""pytest plugin of the torch matrix: one outcome and one fingerprint per test id, as JSON.

Loaded with ``-p tests.torch_matrix_plugin`` by ``python -m scripts torch-matrix`` (which runs
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
was run from one that only moved; the fingerprints are :mod:`scripts.hooks.matrix_notes`', which
the build hook shares.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from scripts.hooks.matrix_notes import block_fingerprint, file_fingerprint

OUT_VARIABLE = "TORCH_MATRIX_OUT"
#: Longest failure or skip message kept in the record (characters).
MESSAGE_LENGTH = 240
#: How pytest-codeblocks reports a block whose printed output is not the page's.
OUTPUT_MISMATCH = re.compile(
    r"Expected output\n```\n(?P<shown>.*?)```\nbut got\n```\n(?P<printed>.*)```", re.DOTALL
)


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
    a wrong printed output is given by its first line that differs from the page's. nbmake's
    failure repeats the whole notebook: it is given as ``cell N: <what the cell raised>``."""
    error = excinfo.value
    result = error.args[0] if error.args else None
    if type(error).__name__ == "NotebookFailedException" and getattr(result, "error", None):
        # nbmake's exception holds the whole notebook; its error names the cell and what it raised
        failed = result.error
        return first_line(f"cell {failed.failing_cell_index}: {' '.join(failed.summary.split())}")
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
        self.out.write_text(
            json.dumps(
                {
                    "collected": self.collected,
                    "outcomes": self.outcomes,
                },
                indent=1,
                sort_keys=True,
            ),
            encoding="utf-8",
        )


def pytest_configure(config):
    """Register the recorder in the controlling process when ``TORCH_MATRIX_OUT`` is set."""
    out = os.environ.get(OUT_VARIABLE)
    if out and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(Path(out)), "torch_matrix_recorder")
