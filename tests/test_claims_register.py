"""The claim register is complete in both directions, and the claims page names each proof.

* every claim id on a page (``{ #claim-<id> }``) is proven by at least one property test;
* every property test in ``tests/test_claims_*.py`` names at least one claim id, and each id it
  names is stated on some page;
* no page states the same id twice (it is an HTML id);
* on ``docs/claims.md`` the paragraph that carries an id names, as code, exactly the tests that
  prove it (``tests/test_claims_x.py::test_name``), so a reader sees what proves each claim.
"""

from __future__ import annotations

import importlib
import re

import pytest

from scripts import ROOT
from scripts.hooks.matrix_notes import proofs_in_sources
from tests.claim_register import CLAIM_ANCHOR, PROOFS, claims_on_pages

MODULES = sorted(
    p.stem for p in (ROOT / "tests").glob("test_claims_*.py") if p.stem != "test_claims_register"
)
for _name in MODULES:  # fills PROOFS
    importlib.import_module(f"tests.{_name}")

TEST_REF = re.compile(r"`(?P<ref>tests/test_claims_\w+\.py::\w+)`")


def property_tests() -> list[tuple[str, object]]:
    """``(module name, function)`` for every Hypothesis test in the property-test modules."""
    found = []
    for name in MODULES:
        module = importlib.import_module(f"tests.{name}")
        for attr, fn in vars(module).items():
            if attr.startswith("test_") and getattr(fn, "is_hypothesis_test", False):
                found.append((name, fn))
    return found


def test_the_property_test_modules_were_found():
    assert len(MODULES) >= 5 and len(property_tests()) >= 20, MODULES


def test_the_decorators_read_without_importing_equal_the_register():
    """The build counts a page's property tests from the sources (no import of torch there):
    that reading must give the register the imported decorators fill."""
    static = proofs_in_sources(ROOT)
    assert {k: sorted(v) for k, v in static.items()} == {k: sorted(v) for k, v in PROOFS.items()}


def test_the_cuda_marks_read_without_importing_equal_pytest_s():
    """The build counts a property test marked ``cuda`` on GPU runs only: the marks it reads
    from the sources are those pytest sees on the imported tests (the function's or module's)."""
    static = {
        test: cuda for tests in proofs_in_sources(ROOT).values() for test, cuda in tests.items()
    }
    for name, fn in property_tests():
        module = importlib.import_module(f"tests.{name}")
        marks = [*getattr(fn, "pytestmark", []), *getattr(module, "pytestmark", [])]
        cuda = any(mark.name == "cuda" for mark in marks)
        assert static[f"tests/{name}.py::{fn.__name__}"] is cuda, (name, fn.__name__)
    assert any(static.values()), "the site has property tests marked cuda"


def test_every_claim_on_a_page_has_a_property_test():
    missing = {c: where for c, where in claims_on_pages().items() if c not in PROOFS}
    assert not missing, f"claim ids with no property test (add @proves): {missing}"


def test_every_property_test_names_claims_that_a_page_states():
    on_pages = claims_on_pages()
    unnamed = [
        f"{m}.{fn.__name__}" for m, fn in property_tests() if not getattr(fn, "claim_ids", ())
    ]
    assert not unnamed, f"property tests that name no claim id (add @proves): {unnamed}"
    unknown = {c: tests for c, tests in PROOFS.items() if c not in on_pages}
    assert not unknown, f"claim ids that no page states: {unknown}"


def test_no_page_states_a_claim_id_twice():
    twice = {
        c: where
        for c, where in claims_on_pages().items()
        if len({page for page, _ in where}) < len(where)
    }
    assert not twice, f"one id, one place per page: {twice}"


def claims_page_paragraphs() -> dict[str, str]:
    """Claim id -> the text of the paragraph of ``docs/claims.md`` that carries it."""
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    paragraphs = re.split(r"\n\s*\n", text)
    return {m["id"]: para for para in paragraphs for m in CLAIM_ANCHOR.finditer(para)}


@pytest.mark.parametrize("claim", sorted(claims_page_paragraphs()))
def test_the_claims_page_names_the_tests_that_prove_each_claim(claim):
    shown = sorted(m["ref"] for m in TEST_REF.finditer(claims_page_paragraphs()[claim]))
    assert shown == sorted(PROOFS.get(claim, [])), (
        f"docs/claims.md, claim-{claim}: the paragraph shows {shown}, the proofs are "
        f"{sorted(PROOFS.get(claim, []))}"
    )
    for ref in shown:
        assert (ROOT / ref.split("::")[0]).is_file(), ref
