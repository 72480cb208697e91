"""The torch matrix: its record is well formed, its fingerprints follow meaning, its workflow and
merge are the local command's code, and the pages say exactly what was verified.

``snippets/data/torch_matrix.json`` is written by ``python -m scripts torch-matrix`` (here) or by
``.github/workflows/torch-matrix.yml`` (on GitHub's runners, one job per release). The test suite
runs on the pinned release only, so a check that changed since the matrix ran is not a failure:
the built page says it is not yet run on the earlier releases. What is tested here:

* the record belongs to the pin in ``requirements.txt``, covers the right releases and is well
  formed (every release run, every outcome known, summaries that add up);
* a comment, a docstring or whitespace leaves a fingerprint as it is, a changed number does not;
* the workflow's matrix is the covered releases that ``--list --json`` prints, its jobs call the
  same command, and merging parts (the workflow's last job) is the code a local run uses;
* the build hook: a page's line names the releases where all its checks pass and counts the
  checks not yet run; a block failing on an earlier release gets a note at the block.

Links to PyTorch's reference pages and source follow the pin too.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from packaging.version import Version
from pytest_codeblocks.main import extract_from_file

import scripts.commands.torch_matrix as matrix
from scripts.build.matrix_record import block_fingerprint, code_meaning, file_fingerprint
from scripts.checks.site import build_site
from scripts.commands.torch_matrix import (
    EARLIER_MINORS,
    RECORD,
    ROOT,
    covered_releases,
    load_record,
    merge_records,
    part_record,
    pinned_release,
)

WORKFLOW = ROOT / ".github" / "workflows" / "torch-matrix.yml"


@pytest.fixture(scope="module")
def record() -> dict:
    assert RECORD.exists(), f"{RECORD.relative_to(ROOT)} is missing: python -m scripts torch-matrix"
    return load_record()


def test_record_belongs_to_the_pin_and_covers_the_right_releases(record):
    pinned = pinned_release()
    assert record["pinned"] == pinned, (
        f"the torch matrix record was made for torch {record['pinned']}, but requirements.txt pins "
        f"{pinned}: run python -m scripts torch-matrix (or the Torch matrix workflow)"
    )
    covered = record["covered"]
    assert covered[0] == pinned and len(covered) == 1 + EARLIER_MINORS, covered
    # The latest patch of each of the minor releases just before the pin, newest first.
    assert covered_releases(pinned, covered) == covered
    pin = Version(pinned)
    assert [Version(r).minor for r in covered] == [pin.minor - k for k in range(len(covered))]
    assert sorted(record["releases"]) == sorted(covered), "every covered release has a run"


def test_record_is_well_formed(record):
    assert record["command"] == matrix.COMMAND
    for release, entry in record["releases"].items():
        assert entry["release"] == release
        assert entry["torch"].split("+")[0] == release, (release, entry["torch"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", entry["date"])
        assert set(entry["machine"]) == {"platform", "cpu", "python"}
        tests = entry["tests"]
        assert len(tests) > 100, f"{release}: suspiciously few tests ({len(tests)})"
        for test_id, result in tests.items():
            assert result["outcome"] in ("passed", "failed", "skipped"), (test_id, result)
            if result["outcome"] != "passed":
                assert result.get("message"), (test_id, "a failure or skip says why")
        counts = {k: sum(t["outcome"] == k for t in tests.values()) for k in entry["summary"]}
        assert counts == entry["summary"], release


SNIPPET = '''"""What this file shows."""

import torch


def main() -> None:
    """Print a sum."""
    total = torch.tensor([1.0, 2.0]).sum()  # three
    print(float(total))


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("edit, same", [
    (lambda s: s.replace("# three", "# three, as floats"), True),  # a comment
    (lambda s: s.replace('"""Print a sum."""', '"""Print the sum of two numbers."""'), True),
    (lambda s: s.replace("[1.0, 2.0]", "[1.0,\n                          2.0]"), True),  # reflowed
    (lambda s: s.replace("\n\n\ndef main", "\n\ndef main"), True),  # blank lines
    (lambda s: s.replace("2.0]", "2.5]"), False),  # a number
    (lambda s: s.replace("sum()", "mean()"), False),  # a call
    (lambda s: s.replace('    """Print a sum."""\n', ""), True),  # a docstring removed
    (lambda s: s.replace("    print(float(total))", "    print(float(total))\n    'x'"), False),
])
def test_fingerprints_follow_meaning_not_text(tmp_path, edit, same):
    """Comments, docstrings and whitespace do not mark a snippet or a block as changed; a changed
    number, call or statement does. A golden output file counts byte for byte."""
    path = tmp_path / "example.py"
    path.write_text(SNIPPET)
    before = file_fingerprint(path)
    assert block_fingerprint(SNIPPET, "3.0\n") == block_fingerprint(SNIPPET, "3.0\n")
    edited = edit(SNIPPET)
    assert edited != SNIPPET, "the edit must change the text"
    path.write_text(edited)
    assert (file_fingerprint(path) == before) is same
    assert (block_fingerprint(edited, "3.0\n") == block_fingerprint(SNIPPET, "3.0\n")) is same
    assert block_fingerprint(SNIPPET, "3.0\n") != block_fingerprint(SNIPPET, "3.5\n")
    assert block_fingerprint(SNIPPET, None) != block_fingerprint(SNIPPET, "")
    path.with_suffix(".out").write_text("3.0\n")
    with_golden = file_fingerprint(path)
    path.with_suffix(".out").write_text("3.5\n")
    assert file_fingerprint(path) != with_golden


def test_a_notebook_fingerprint_follows_its_code_cells(tmp_path):
    def notebook(markdown: str, code: str) -> str:
        return json.dumps({"cells": [
            {"cell_type": "markdown", "source": [markdown], "metadata": {}},
            {"cell_type": "code", "source": [code], "metadata": {}, "outputs": [],
             "execution_count": None},
        ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

    path = tmp_path / "n.ipynb"
    path.write_text(notebook("# Title", "x = 1  # one"))
    first = file_fingerprint(path)
    path.write_text(notebook("# Another title", "x = 1  # the number one"))
    assert file_fingerprint(path) == first
    path.write_text(notebook("# Title", "x = 2"))
    assert file_fingerprint(path) != first


def test_code_that_is_not_python_is_compared_as_text():
    assert code_meaning("echo hi  \n\n") == code_meaning("echo hi")
    assert code_meaning("echo hi") != code_meaning("echo ho")
    assert code_meaning("%timeit f()\n") != code_meaning("%timeit g()\n")


def _workflow() -> dict:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    workflow["on"] = workflow.get("on", workflow.pop(True, None))  # YAML 1.1 reads `on` as true
    return workflow


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_workflow_runs_one_job_per_covered_release_and_merges_with_the_same_command():
    workflow = _workflow()
    triggers = workflow["on"]
    assert triggers["push"]["branches"] == ["main"]
    assert triggers["schedule"] and "workflow_dispatch" in triggers
    jobs = workflow["jobs"]
    assert "python -m scripts torch-matrix --list --json" in _runs(jobs["releases"])
    assert jobs["releases"]["outputs"]["covered"] == "${{ steps.covered.outputs.covered }}"
    run = jobs["run"]
    assert run["needs"] == "releases"
    assert run["strategy"]["matrix"] == {
        "release": "${{ fromJSON(needs.releases.outputs.covered) }}"}
    assert run["strategy"]["fail-fast"] is False
    assert "download.pytorch.org/whl/cpu" in run["env"]["PIP_EXTRA_INDEX_URL"]
    command = " ".join(_runs(run).split())
    assert "python -m scripts torch-matrix --release ${{ matrix.release }} --part" in command
    uploads = [s for s in run["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "torch-matrix-part.json"
    paths = jobs["cpu-paths"]
    assert set(paths["strategy"]["matrix"]["runner"]) == {"ubuntu-latest", "ubuntu-24.04-arm"}
    assert paths["runs-on"] == "${{ matrix.runner }}"
    assert "python -m scripts torch-matrix --cpu-paths --part torch-matrix-part.json" in _runs(
        paths)
    merge = jobs["record"]
    assert set(merge["needs"]) == {"releases", "run", "cpu-paths"}
    assert merge["permissions"] == {"contents": "write"}
    assert "python -m scripts torch-matrix --merge parts/*/torch-matrix-part.json" in _runs(merge)
    assert f"git add {RECORD.relative_to(ROOT).as_posix()}" in _runs(merge)


def test_list_json_prints_the_covered_releases_the_workflow_matrix_reads(monkeypatch, capsys,
                                                                         record):
    """With the registry's answer fixed, ``--list --json`` prints exactly the covered releases,
    as one JSON list, and nothing else on standard output."""
    pinned = pinned_release()
    pin = Version(pinned)
    available = [*record["covered"], f"{pin.major}.{pin.minor - 1}.0",
                 f"{pin.major}.{pin.minor - 3}.7", f"{pin.major}.{pin.minor + 1}.0"]
    monkeypatch.setattr(matrix, "registry_releases", lambda: available)
    assert matrix.main(["--list", "--json"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed) == covered_releases(pinned, available) == record["covered"]
    assert printed.count("\n") == 1


def _entry(release: str, outcome: str = "passed") -> dict:
    return {"release": release, "torch": release, "date": "2026-01-01",
            "machine": {"platform": "p", "cpu": "c", "python": "3.11"},
            "summary": {"passed": 1, "failed": 0, "skipped": 0},
            "tests": {"docs/a.md::line 3": {"outcome": outcome, "fingerprint": "0" * 12}}}


def test_merging_two_parts_keeps_both_and_the_base_for_the_rest():
    covered = ["9.2.0", "9.1.3", "9.0.1"]
    base = part_record("9.2.0", covered, {r: _entry(r, "failed") for r in covered})
    base["releases"]["8.9.0"] = _entry("8.9.0")  # no longer covered
    first = part_record("9.2.0", covered, {"9.2.0": _entry("9.2.0")})
    second = part_record("9.2.0", covered, {"9.1.3": _entry("9.1.3")})
    merged = merge_records(base, [first, second])
    assert sorted(merged["releases"]) == sorted(covered)
    assert merged["releases"]["9.2.0"] == first["releases"]["9.2.0"]
    assert merged["releases"]["9.1.3"] == second["releases"]["9.1.3"]
    assert merged["releases"]["9.0.1"] == base["releases"]["9.0.1"]  # its job broke: kept
    assert merged["pinned"] == "9.2.0" and merged["covered"] == covered
    # A base made for another pin contributes nothing.
    old = {**base, "pinned": "9.1.0"}
    assert list(merge_records(old, [first, second])["releases"]) == ["9.2.0", "9.1.3"]
    with pytest.raises(ValueError, match="disagree"):
        merge_records(base, [first, part_record("9.3.0", covered, {})])
    with pytest.raises(ValueError, match="does not cover"):
        merge_records(base, [part_record("9.2.0", covered, {"8.9.0": _entry("8.9.0")})])
    with pytest.raises(ValueError, match="no part"):
        merge_records(base, [])


def test_the_workflow_merge_and_a_local_run_write_the_same_record(tmp_path, monkeypatch):
    """``--merge`` of two part files (the workflow's last job) and a local run of both releases
    (``--release`` twice, with installing and pytest replaced by fixed results) give the same
    record; ``--part`` leaves the record alone."""
    pinned = pinned_release()
    pin = Version(pinned)
    covered = [pinned, f"{pin.major}.{pin.minor - 1}.1", f"{pin.major}.{pin.minor - 2}.0"]
    monkeypatch.setattr(matrix, "registry_releases", lambda: covered)
    monkeypatch.setattr(matrix, "ensure_venv", lambda release, reinstall=False: f"python{release}")
    monkeypatch.setattr(matrix, "run_release", lambda release, python: _entry(release))
    parts = []
    for release in covered[1:]:
        part = tmp_path / f"{release}.json"
        assert matrix.main(["--release", release, "--part", str(part),
                            "--record", str(tmp_path / "untouched.json")]) == 0
        parts.append(part)
    assert not (tmp_path / "untouched.json").exists()
    base = part_record(pinned, covered, {pinned: _entry(pinned, "failed")})
    for name in ("merged.json", "local.json"):
        (tmp_path / name).write_text(json.dumps(base))
    merged_file = str(tmp_path / "merged.json")
    assert matrix.main(["--merge", *map(str, parts), "--record", merged_file]) == 0
    assert matrix.main(["--release", covered[1], "--release", covered[2],
                        "--record", str(tmp_path / "local.json")]) == 0
    merged, local = (load_record(tmp_path / n) for n in ("merged.json", "local.json"))
    assert merged == local
    assert merged["releases"][pinned]["tests"]["docs/a.md::line 3"]["outcome"] == "failed"
    assert sorted(merged["releases"]) == sorted(covered)


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


PAGE = """---
title: A page
---

# A page

### 1. "The first claim"

```python
assert 1 + 1 == 2  # arithmetic
```

### 2. "The second claim"

```python
print(2 + 2)
```

<!--pytest-codeblocks:expected-output-->
```text
4
```

### 3. "The third claim"

```python
assert 3 + 3 == 6
```

## By release

<!-- torch-matrix: claims-by-release -->
"""

OTHER = """# Another page

```python
assert True
```

True, always.
{ #claim-always-true }

```text
Not a claim:
{ #claim-in-a-fence }
```
"""

#: Property tests of the claims on OTHER, read (never imported) by the hook.
PROPERTY_TESTS = """from tests.claim_register import proves


@proves("always-true")
def test_always_true():
    assert True


@proves("in-a-fence")
def test_in_a_fence():
    assert True
"""


def test_build_hook_says_what_was_verified_and_notes_a_difference_at_its_block(tmp_path):
    """A minimal project with the hook and a record, pin 9.1.0. On 9.0.0 the record ran block 1
    before a comment changed (still counts), block 2 printed another output, block 3 ran with
    another number (not yet run as it is today). The page's line says so, with no warning box
    above the page's answer; the note about block 2 sits after its output; the claims table has
    holds, differs and not yet run; a page whose checks all passed says so, counting the property
    test of the claim it states (not of the id shown in a code block). The page's front matter
    shifts no line."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "tests" / "test_claims_x.py").write_text(PROPERTY_TESTS)
    (project / "docs" / "page.md").write_text(PAGE)
    (project / "docs" / "other.md").write_text(OTHER)
    blocks = extract_from_file(project / "docs" / "page.md")
    other = extract_from_file(project / "docs" / "other.md")[0]
    ids = [f"docs/page.md::line {b.lineno}" for b in blocks]
    prints = [block_fingerprint(b.code, b.expected_output) for b in blocks]
    before = [block_fingerprint(blocks[0].code.replace("# arithmetic", "# sums"), None),
              prints[1], block_fingerprint(blocks[2].code.replace("6", "7"), None)]
    other_run = {"docs/other.md::line 3": {
        "outcome": "passed", "fingerprint": block_fingerprint(other.code, None)},
        "tests/test_claims_x.py::test_always_true": {"outcome": "passed"}}

    def run(release: str, fingerprints: list[str], second: dict) -> dict:
        return {"date": "2026-01-01", "torch": release, "tests": {
            ids[0]: {"outcome": "passed", "fingerprint": fingerprints[0]},
            ids[1]: {**second, "fingerprint": fingerprints[1]},
            ids[2]: {"outcome": "passed", "fingerprint": fingerprints[2]},
            **other_run,
        }}

    differs = {"outcome": "failed", "message": 'prints "5" where the page shows "4"'}
    record = project / RECORD.relative_to(ROOT)
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"pinned": "9.1.0", "covered": ["9.1.0", "9.0.0"], "releases": {
        "9.1.0": run("9.1.0", [""] * 3, differs),  # the pin: verified by the suite itself
        "9.0.0": run("9.0.0", before, differs),
    }}))
    (project / "mkdocs.yml").write_text(yaml.safe_dump({
        "site_name": "matrix", "strict": True,
        "nav": [{"Page": "page.md"}, {"Other": "other.md"}],
        "markdown_extensions": ["toc", "attr_list"],
        "hooks": [str(ROOT / "scripts" / "build" / "matrix_notes.py")],
    }))
    proc = build_site(project, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout[-2000:]
    page = (tmp_path / "out" / "page" / "index.html").read_text()
    head = page[page.index("</h1>"):page.index("<h3")]
    assert "<strong>Verified</strong>: 3 checks on torch 9.1.0" in head
    assert '<a href="#torch-matrix-details">1 differs on 9.0.0</a>' in head
    assert '<a href="#torch-matrix-details">1 not yet run on 9.0.0</a>' in head
    assert "admonition" not in head and head.count("<p") == 1, "one line, no box"
    note = "On PyTorch 9.0.0 this block prints <code>5</code> where the page shows <code>4</code>."
    assert page.index("4\n</code></pre>") < page.index(note) < page.index('id="3-the-third-claim"')
    details = page[page.index('id="torch-matrix-details"'):]
    assert f"block at line {blocks[2].lineno} in <a href=\"#3-the-third-claim\">" in details
    rows = page[page.index("<table>"):].split("</tr>")[1:4]
    assert rows[0].count("<td>holds</td>") == 2
    assert "<td>holds</td><td><strong>differs</strong>: block at line" in rows[1]
    assert "<td>holds</td><td>not yet run</td>" in rows[2]
    other_page = (tmp_path / "out" / "other" / "index.html").read_text()
    assert '<p id="claim-always-true">' in other_page
    assert "<strong>Verified</strong>: 2 checks on torch 9.1.0 and 9.0.0" in other_page
    assert "torch-matrix-details" not in other_page


def test_reachable_cpu_paths_follow_the_cpu():
    """An AVX2 machine reaches the AVX2 path but not the AVX-512 ones; an AVX-512 VNNI machine
    reaches them all; an arm64 machine reaches only the paths without x86 settings."""
    every = list(matrix.CPU_PATHS)
    avx2 = matrix.reachable_paths({"avx2", "fma"}, "x86_64")
    assert avx2 == [p for p in every if p not in ("avx512", "onednn-vnni")]
    vnni = {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni"}
    assert matrix.reachable_paths(vnni, "x86_64") == every
    assert matrix.reachable_paths({"asimd", "bf16"}, "aarch64") == [
        "native", "aten-default", "no-onednn", "one-thread"]
    assert matrix.path_key("avx2", "X86_64") == "x86_64/avx2"


def test_merging_keeps_cpu_path_runs_of_the_same_pin_only():
    covered = ["9.2.0", "9.1.3", "9.0.1"]
    base = part_record("9.2.0", covered, {}, {"x86_64/native": _entry("9.2.0", "failed"),
                                               "x86_64/avx2": _entry("9.2.0")})
    new = part_record("9.2.0", covered, {}, {"x86_64/native": _entry("9.2.0"),
                                              "aarch64/native": _entry("9.2.0")})
    merged = merge_records(base, [new])
    assert sorted(merged["cpu_paths"]) == ["aarch64/native", "x86_64/avx2", "x86_64/native"]
    assert merged["cpu_paths"]["x86_64/native"] == new["cpu_paths"]["x86_64/native"]
    assert sorted(merge_records({**base, "pinned": "9.1.0"}, [new])["cpu_paths"]) == [
        "aarch64/native", "x86_64/native"]


@pytest.mark.audit  # the CPU kernel paths are audits; this starts fresh Python processes
def test_the_no_onednn_path_switches_onednn_off_in_every_process(tmp_path):
    """The ``no-onednn`` path's sitecustomize, on PYTHONPATH, leaves a new Python process with
    ``torch.backends.mkldnn.enabled`` false, and leaves it true without the variable."""
    (tmp_path / "sitecustomize.py").write_text(matrix._NO_ONEDNN_SITE)
    code = "import torch; print(torch.backends.mkldnn.enabled)"
    for value, expected in (("1", "False"), (None, "True")):
        env = {**os.environ, "PYTHONPATH": str(tmp_path)}
        env.pop(matrix.NO_ONEDNN, None)
        if value:
            env[matrix.NO_ONEDNN] = value
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == expected


def test_a_page_counts_the_cpu_paths_its_checks_passed_on(monkeypatch):
    """The facts line names how many CPU paths passed every check of the page, links the
    paths' table, and says on which path a check differs; the details list it."""
    from scripts.build import matrix_notes as hook

    check = hook.Check("docs/a.md::line 3", "block at line 3", "0" * 12, 3)
    failed = _entry("9.2.0", "failed")
    failed["tests"]["docs/a.md::line 3"]["message"] = "AssertionError: boom"
    monkeypatch.setattr(hook, "_record", {
        "pinned": "9.2.0", "releases": {"9.2.0": _entry("9.2.0")},
        "cpu_paths": {"x86_64/avx2": _entry("9.2.0"), "x86_64/native": _entry("9.2.0"),
                      "aarch64/native": failed}})
    state, paths = hook.status([check]), hook.status([check], "cpu_paths")
    assert state.passed == ["9.2.0"] and not state.failed and not state.pending
    assert paths.passed == ["x86_64/avx2", "x86_64/native"]
    assert list(paths.failed) == ["aarch64/native"]
    line = hook.verified_line(state, paths, "../claims/#cpu-kernel-paths")
    assert ('on torch 9.2.0 and <a href="../claims/#cpu-kernel-paths">2 CPU paths</a>' in line)
    assert "1 differs on CPU path aarch64/native" in line
    assert "On CPU path aarch64/native, block at line 3 fails with" in hook.details_html(
        state, paths, [])
    assert "<code>x86_64/avx2</code>" in hook.paths_table()


NESTED = '''??? note "The code"
    ```python
    print(2 + 2)
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text
    4
    ```

=== "A tab"

    ```python
    assert 1 + 1 == 3
    ```

The end.
'''


def test_a_note_follows_a_block_or_its_output_inside_an_admonition_or_a_tab():
    """A block straight under ``??? note`` (no blank line, which CommonMark would read as a
    paragraph) gets its note after its expected output, and a block in a content tab after its
    closing fence, both indented as the block is; ``offset`` (front matter) shifts the lines."""
    from pytest_codeblocks.main import extract_from_buffer

    from scripts.build import matrix_notes as hook

    front = "---\ntitle: T\n---\n"
    first, second = extract_from_buffer(io.StringIO(front + NESTED))
    checks = [hook.Check(f"docs/p.md::line {b.lineno}", f"block at line {b.lineno}", None,
                         b.lineno, b.expected_output is not None) for b in (first, second)]
    state = hook.Status(checks, ["9.1.0"], {}, {"9.0.0": [
        (checks[0], 'prints "5" where the page shows "4"'), (checks[1], "AssertionError: no")]})
    lines = hook.block_notes(NESTED, 3, state).splitlines()
    assert lines[8:11] == [
        "    ```", "",
        '    <p class="torch-matrix-difference">On PyTorch 9.0.0 this block prints <code>5</code>'
        " where the page shows <code>4</code>.</p>"]
    assert lines[16:19] == [
        "    ```", "",
        '    <p class="torch-matrix-difference">On PyTorch 9.0.0 this block fails with '
        "<code>AssertionError: no</code>.</p>"]
    assert lines[19:] == ["", "The end."]
    assert hook.block_notes(NESTED, 3, hook.Status(checks, ["9.1.0"], {}, {})) == NESTED


def test_the_build_imports_no_markdown_model_for_the_matrix():
    """The hook reads pages with the build's reader (markdown-it-py) and pymdownx.snippets, and the
    record through scripts.build.matrix_record: loading it loads no other module of the project."""
    code = ("import sys; import scripts.build.matrix_notes; "
            "print(sorted(m for m in sys.modules if m.startswith('scripts')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out.replace("'", '"')) == [
        "scripts", "scripts.build", "scripts.build.markdown_blocks", "scripts.build.matrix_notes",
        "scripts.build.matrix_record", "scripts.build.page_facts"]


def test_a_page_checks_its_blocks_included_snippets_and_claims_proofs(tmp_path, monkeypatch):
    """A page's checks: each Python or shell block (not a ``text`` one), each ``snippets/*.py``
    it includes (once, whatever region; not a ``.out`` file, not an escaped include line), the
    property tests of the claim ids given, in that order."""
    from scripts.build import matrix_notes as hook

    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    for name in ("a.py", "a.out", "b.py", "c.py"):
        (tmp_path / "snippets" / name).write_text("print(1)\n")
    (tmp_path / "docs" / "p.md").write_text(
        '# P\n\n```python\nx = 1\n```\n\n```text\nno\n```\n\n```python\n--8<-- "snippets/a.py:one"'
        "\n```\n\n```python\n--8<-- 'snippets/a.py:two'\n--8<-- \"snippets/b.py\"\n```\n\n"
        '```text\n--8<-- "snippets/a.out"\n;--8<-- "snippets/c.py"\n```\n\n```sh\necho hi\n```\n')
    monkeypatch.setattr(hook, "_root", tmp_path)
    monkeypatch.setattr(hook, "_record", {"releases": {}})
    monkeypatch.setattr(hook, "_proofs", {"c": ["tests/test_claims_x.py::test_c"]})
    hook._source.cache_clear()
    try:
        ids = [c.test_id for c in hook.page_checks("p.md", ["c", "unknown"])]
    finally:
        hook._source.cache_clear()
    snippet = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
    assert ids == ["docs/p.md::line 3", "docs/p.md::line 11", "docs/p.md::line 15",
                   "docs/p.md::line 25", f"{snippet}[snippets/a.py]", f"{snippet}[snippets/b.py]",
                   "tests/test_claims_x.py::test_c"]
