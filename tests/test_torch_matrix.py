"""The torch matrix's record is current: it pins today's release and covers today's tests.

``snippets/data/torch_matrix.json`` is written by ``python -m scripts.torch_matrix``, which runs
every page block, snippet, notebook and property test on each covered PyTorch release. CI installs
only the pinned release, so it cannot rerun the matrix; it checks instead that the record is not
stale:

* the record's pinned release is the one in ``requirements.txt``, and it holds a run of each
  release it covers (the pinned one and two earlier minor releases);
* every test the matrix selects today has an outcome for every covered release, run on the test
  as it is today: a page block whose code or expected output changed since the matrix ran counts
  as missing (a block that only moved does not). Today's tests are read from this run's own
  collection when it is a plain ``python -m pytest``, which collects all of them; otherwise (a
  file, ``-k``, ``--deselect``) from ``pytest --collect-only`` in a subprocess (several seconds).

Each failure names the command that refreshes the record. Links to PyTorch's reference pages and
source follow the pin too.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml
from packaging.version import Version
from pytest_codeblocks.main import extract_from_file

from scripts.site import build_site
from scripts.torch_matrix import (
    COMMAND,
    DESELECT,
    EARLIER_MINORS,
    RECORD,
    ROOT,
    collect_today,
    load_record,
    pinned_release,
    recorded,
    selection,
)
from scripts.torch_matrix_plugin import block_fingerprint, file_fingerprint, fingerprint

REFRESH = f"refresh the record: {COMMAND} (then commit {RECORD.relative_to(ROOT)})"


@pytest.fixture(scope="module")
def record() -> dict:
    assert RECORD.exists(), f"{RECORD.relative_to(ROOT)} is missing; {REFRESH}"
    return load_record()


def collected_in(session: pytest.Session) -> dict[str, str | None] | None:
    """The matrix's selection (``scripts.torch_matrix.selection``) among ``session``'s collected
    tests, plus the notebooks (which only the matrix runs as tests, through nbmake), as ``{test
    id: fingerprint}``, when the session collected all of it: its paths are the ``testpaths`` of
    pyproject.toml and nothing deselects (``-k``, ``-m``, ``--deselect``, ``--lf``, ``--sw``).
    ``None`` otherwise."""
    config = session.config
    narrowed = (config.option.keyword or config.option.markexpr or config.getoption("deselect")
                or config.getoption("lf", False) or config.getoption("stepwise", False))
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS or narrowed:
        return None
    paths = [arg for arg in selection(ROOT) if arg != "--deselect" and arg not in DESELECT]
    collected = {
        item.nodeid: fingerprint(item) for item in session.items
        if item.nodeid not in DESELECT
        and any(item.nodeid.split("::")[0] == p or item.nodeid.startswith(p + "/") for p in paths)
    }
    # The notebooks, which the matrix runs through nbmake and a plain run does not collect, as
    # ``<path>::``: the nbmake test of that file, whatever nbmake calls it (see ``recorded``).
    for notebook in sorted((ROOT / "docs").rglob("*.ipynb")):
        if ".ipynb_checkpoints" not in notebook.parts:
            collected[f"{notebook.relative_to(ROOT).as_posix()}::"] = file_fingerprint(notebook)
    return collected


@pytest.fixture(scope="module")
def today(request) -> dict[str, str | None]:
    here = collected_in(request.session)
    return here if here is not None else collect_today()


def stale_tests(record: dict, today: dict[str, str | None]) -> dict[str, list[str]]:
    """For each release the record covers, the ids of today's tests it has no run of (as they are
    today); releases without any are left out."""
    stale = {}
    for release in record["covered"]:
        tests = record["releases"].get(release, {}).get("tests", {})
        missing = [t for t, fp in today.items() if recorded(t, fp, tests) is None]
        if missing:
            stale[release] = missing
    return stale


def test_record_pins_the_release_in_requirements(record):
    pinned = pinned_release()
    assert record["pinned"] == pinned, (
        f"the torch matrix record was made for torch {record['pinned']}, but requirements.txt "
        f"pins {pinned}; {REFRESH}"
    )
    assert record["covered"][0] == pinned and len(record["covered"]) == 1 + EARLIER_MINORS, (
        f"the record covers {record['covered']}; {REFRESH}"
    )
    missing = [r for r in record["covered"] if r not in record["releases"]]
    assert not missing, f"the record has no run of torch {', '.join(missing)}; {REFRESH}"
    for release, entry in record["releases"].items():
        assert entry["torch"].split("+")[0] == release, (release, entry["torch"])


def test_record_has_every_test_of_today_for_every_release(record, today):
    assert len(today) > 100, f"suspiciously few tests collected: {len(today)}"
    stale = stale_tests(record, today)
    lines = [
        f"torch {release}: {len(ids)} test(s) not in the record (new or changed), e.g. "
        + ", ".join(ids[:5])
        for release, ids in stale.items()
    ]
    assert not stale, "\n".join(lines) + f"\n{REFRESH}"


def test_staleness_check_notices_a_removed_and_a_changed_test(record, today):
    """The check above can fail: a record without one of today's ids, or with a page block whose
    fingerprint differs, is stale for that release."""
    release = record["covered"][-1]
    tests = dict(record["releases"][release]["tests"])
    block = next(t for t, fp in today.items() if ".md::line " in t and recorded(t, fp, tests))
    # Remove the block's run under any id (a block the prose moved is found by its fingerprint).
    tests = {t: e for t, e in tests.items()
             if t != block and e.get("fingerprint") != today[block]}
    trimmed = {**record, "releases": {**record["releases"]}}
    trimmed["releases"][release] = {**record["releases"][release], "tests": tests}
    assert block in stale_tests(trimmed, today).get(release, [])
    changed = dict(today)
    changed[block] = "0" * 12
    assert block in stale_tests(record, changed).get(release, [])


#: Versioned links to PyTorch's documentation and source, as written on pages and in snippets.
PYTORCH_LINK = re.compile(
    r"https://(?:docs\.pytorch\.org/docs/(?P<docs>\d+\.\d+)/"
    r"|github\.com/pytorch/pytorch/(?:blob|tree)/v(?P<source>\d+\.\d+\.\d+)/)[^\s)>\"']*"
)
#: Links that name an older release on purpose (the sentence is about that release).
ABOUT_AN_OLDER_RELEASE = {
    # the kernel with pytorch#190063, next to the fixed one (docs/sparsity.md, footnote "scale")
    "https://github.com/pytorch/pytorch/blob/v2.13.0/aten/src/ATen/native/EmbeddingBag.cpp",
}


def test_pytorch_links_name_the_pinned_release():
    """Reference pages and source files are linked for the release the site documents."""
    pinned = Version(pinned_release())
    files = [*ROOT.glob("docs/**/*.md"), *ROOT.glob("docs/**/*.ipynb"),
             *ROOT.glob("snippets/**/*.py"), ROOT / "README.md"]
    wrong = []
    for path in files:
        for match in PYTORCH_LINK.finditer(path.read_text(encoding="utf-8")):
            named = match["docs"] or match["source"]
            expected = f"{pinned.major}.{pinned.minor}" if match["docs"] else pinned.public
            if named != expected and match[0] not in ABOUT_AN_OLDER_RELEASE:
                wrong.append(f"{path.relative_to(ROOT)}: {match[0]}")
    assert not wrong, (
        f"links naming another release than the pinned torch {pinned} (make them follow the pin, "
        "or list a link about an older release in ABOUT_AN_OLDER_RELEASE):\n" + "\n".join(wrong)
    )


PAGE = """# A page

### 1. "The first claim"

```python
assert 1 + 1 == 2
```

### 2. "The second claim"

```python
assert 2 + 2 == 4
```

## By release

<!-- torch-matrix: claims-by-release -->
"""


def test_build_hook_names_the_failing_block_and_the_releases_that_pass(tmp_path):
    """A minimal project with the hook and a record: release 9.1.0 passes both blocks, 9.0.0 fails
    the second. The page says "Verified on" 9.1.0 only, names the failing block, its section and
    its error for 9.0.0, and its claims table marks the second claim as failing there."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "page.md").write_text(PAGE)
    blocks = [b for b in extract_from_file(project / "docs" / "page.md")]
    ids = [f"docs/page.md::line {b.lineno}" for b in blocks]
    prints = [block_fingerprint(b.code, b.expected_output) for b in blocks]

    def run(failed: bool) -> dict:
        second = {"outcome": "failed", "message": "AssertionError: boom"} if failed else {
            "outcome": "passed"}
        return {"date": "2026-01-01", "torch": "x", "tests": {
            ids[0]: {"outcome": "passed", "fingerprint": prints[0]},
            ids[1]: {**second, "fingerprint": prints[1]},
        }}

    record = project / RECORD.relative_to(ROOT)
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"releases": {"9.1.0": run(False), "9.0.0": run(True)}}))
    (project / "mkdocs.yml").write_text(yaml.safe_dump({
        "site_name": "matrix", "strict": True, "nav": [{"Page": "page.md"}],
        "markdown_extensions": ["toc"],
        "hooks": [str(ROOT / "scripts" / "hooks" / "torch_matrix.py")],
    }))
    proc = build_site(project, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout[-2000:]
    page = (tmp_path / "out" / "page" / "index.html").read_text()
    assert "<strong>Verified on PyTorch 9.1.0</strong>: all 2 checks" in page
    assert "On PyTorch 9.0.0, 1 of 2 checks of this page fail" in page
    assert f"block at line {blocks[1].lineno} in <a href=\"#2-the-second-claim\">" in page
    assert "<code>AssertionError: boom</code>" in page
    table = page[page.index("<table>"):]
    first, second = table.split("</tr>")[1:3]
    assert first.count("<td>holds</td>") == 2
    assert "<td>holds</td><td><strong>fails</strong>" in second
