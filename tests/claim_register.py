"""The claim register: which property test proves which claim on the site.

A general sentence on a page ("for any ids", "always", "exactly") carries a claim id, written as
an attribute list on the paragraph that states it, ``{ #claim-bag-equals-reduction }``: the
paragraph gets that HTML id, so the claim can be linked to. A property test in
``tests/test_claims_*.py`` names the ids it proves with :func:`proves` (the build reads these
decorators without importing the tests: :func:`scripts.hooks.matrix_notes.proofs_in_sources`).
``tests/test_claims_register.py`` fails when an id on a page has no property test, or a test
names an id that no page has.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scripts import ROOT
from tests.markdown_model import CLAIM_ANCHOR, claim_ids

#: Claim id -> the tests proving it, as ``tests/<file>.py::<function>`` (filled at import time by
#: :func:`proves`, so the test modules must be imported before it is read).
PROOFS: dict[str, list[str]] = {}


def proves(*claim_ids: str) -> Callable:
    """Decorator: record that the decorated test proves ``claim_ids`` (ids without ``claim-``).

    Returns the test unchanged, with the ids in its ``claim_ids`` attribute. Raises ``ValueError``
    for an id that is not lower-case words joined by hyphens, or for no id at all.
    """
    if not claim_ids:
        raise ValueError("proves() needs at least one claim id")

    def mark(test: Callable) -> Callable:
        module_file = Path(test.__code__.co_filename).resolve().relative_to(ROOT).as_posix()
        for claim in claim_ids:
            if not CLAIM_ANCHOR.fullmatch(f"{{ #claim-{claim} }}"):
                raise ValueError(f"bad claim id {claim!r}: use lower-case words joined by '-'")
            where = f"{module_file}::{test.__name__}"
            if where not in PROOFS.setdefault(claim, []):
                PROOFS[claim].append(where)
        test.claim_ids = claim_ids
        return test

    return mark


def claims_on_pages(root: Path = ROOT) -> dict[str, list[tuple[str, int]]]:
    """Claim id -> where it is stated: ``(page path relative to root, line number)``.

    Reads every Markdown page under ``root/docs/``; code fences are skipped, so an id shown inside
    an example does not count.
    """
    found: dict[str, list[tuple[str, int]]] = {}
    for page in sorted((root / "docs").rglob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        for claim, number in claim_ids(lines):
            found.setdefault(claim, []).append((page.relative_to(root).as_posix(), number))
    return found
