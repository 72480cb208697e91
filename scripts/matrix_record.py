"""The torch matrix's record, read: what the build needs of ``snippets/data/torch_matrix.json``.

:mod:`scripts.torch_matrix` writes the record (it runs the checks on each covered PyTorch release
and CPU kernel path); the build hook :mod:`scripts.hooks.torch_matrix` only reads it, through this
module, so a build does not import the runner.
"""

from __future__ import annotations

import json
from pathlib import Path

#: The committed record of the last matrix run.
RECORD = Path(__file__).resolve().parents[1] / "snippets" / "data" / "torch_matrix.json"


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
