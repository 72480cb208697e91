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
from pytest_codeblocks.main import extract_from_buffer, extract_from_file

import scripts.commands.torch_matrix as matrix
from scripts.checks.site import build_site
from scripts.commands.torch_matrix import (
    EARLIER_MINORS,
    RECORD,
    ROOT,
    covered_releases,
    cpu_path_key,
    gpu_key,
    load_record,
    machine_id,
    merge_records,
    migrate,
    part_record,
    pinned_release,
)
from scripts.hooks.matrix_notes import block_fingerprint, code_meaning, file_fingerprint
from scripts.hooks.page_facts import facts_line
from scripts.hooks.page_text import words

WORKFLOW = ROOT / ".github" / "workflows" / "torch-matrix.yml"


@pytest.fixture(scope="module")
def record() -> dict:
    assert RECORD.exists(), f"{RECORD.relative_to(ROOT)} is missing: python -m scripts torch-matrix"
    return load_record()


def rendered(record, checks, sections, href=None) -> tuple[str, str]:
    """A page's facts line and its list at the end, in English, as the build writes them."""
    from scripts.hooks import matrix_notes

    facts, details = matrix_notes.page_matrix(record, checks, sections, href)
    line = facts_line({"matrix": facts}, "en")
    return line, str(words("en").details(details)) if details else ""


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
        assert (
            {"platform", "cpu", "python"}
            <= set(entry["machine"])
            <= {"platform", "cpu", "python", "flags"}
        )
        assert len(entry["tests"]) > 100, f"{release}: suspiciously few tests"
    for key, entry in record["cpu_paths"].items():
        assert entry["release"] == record["pinned"], key
        arch = key.split("/")[0]
        assert key == cpu_path_key(arch, entry["machine"], entry["path"]), (
            f"{key}: a CPU path run is keyed by its architecture, machine and path"
        )
        assert len(entry["tests"]) > 100, f"{key}: suspiciously few tests"
    for key, entry in record["gpus"].items():
        assert entry["kind"] == "cuda" and key == gpu_key(entry["gpu"], entry["torch"]), key
        assert Version(entry["torch"]).public == entry["release"], key
        assert all(entry["gpu"].get(k) for k in ("name", "driver", "cuda")), (key, entry["gpu"])
    for name, entry in [
        *record["releases"].items(),
        *record["cpu_paths"].items(),
        *record["gpus"].items(),
    ]:
        tests = entry["tests"]
        for test_id, result in tests.items():
            assert result["outcome"] in ("passed", "failed", "skipped"), (test_id, result)
            if result["outcome"] != "passed":
                assert result.get("message"), (test_id, "a failure or skip says why")
        counts = {k: sum(t["outcome"] == k for t in tests.values()) for k in entry["summary"]}
        assert counts == entry["summary"], name


SNIPPET = '''"""What this file shows."""

import torch


def main() -> None:
    """Print a sum."""
    total = torch.tensor([1.0, 2.0]).sum()  # three
    print(float(total))


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize(
    "edit, same",
    [
        (lambda s: s.replace("# three", "# three, as floats"), True),  # a comment
        (lambda s: s.replace('"""Print a sum."""', '"""Print the sum of two numbers."""'), True),
        (
            lambda s: s.replace("[1.0, 2.0]", "[1.0,\n                          2.0]"),
            True,
        ),  # reflowed
        (lambda s: s.replace("\n\n\ndef main", "\n\ndef main"), True),  # blank lines
        (lambda s: s.replace("2.0]", "2.5]"), False),  # a number
        (lambda s: s.replace("sum()", "mean()"), False),  # a call
        (lambda s: s.replace('    """Print a sum."""\n', ""), True),  # a docstring removed
        (lambda s: s.replace("    print(float(total))", "    print(float(total))\n    'x'"), False),
    ],
)
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
        return json.dumps(
            {
                "cells": [
                    {"cell_type": "markdown", "source": [markdown], "metadata": {}},
                    {
                        "cell_type": "code",
                        "source": [code],
                        "metadata": {},
                        "outputs": [],
                        "execution_count": None,
                    },
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )

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
        "release": "${{ fromJSON(needs.releases.outputs.covered) }}"
    }
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
        paths
    )
    merge = jobs["record"]
    assert set(merge["needs"]) == {"releases", "run", "cpu-paths"}
    assert merge["permissions"] == {"contents": "write"}
    assert "python -m scripts torch-matrix --merge parts/*/torch-matrix-part.json" in _runs(merge)
    assert f"git add {RECORD.relative_to(ROOT).as_posix()}" in _runs(merge)


def test_list_json_prints_the_covered_releases_the_workflow_matrix_reads(
    monkeypatch, capsys, record
):
    """With the registry's answer fixed, ``--list --json`` prints exactly the covered releases,
    as one JSON list, and nothing else on standard output."""
    pinned = pinned_release()
    pin = Version(pinned)
    available = [
        *record["covered"],
        f"{pin.major}.{pin.minor - 1}.0",
        f"{pin.major}.{pin.minor - 3}.7",
        f"{pin.major}.{pin.minor + 1}.0",
    ]
    monkeypatch.setattr(matrix, "registry_releases", lambda: available)
    assert matrix.main(["--list", "--json"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed) == covered_releases(pinned, available) == record["covered"]
    assert printed.count("\n") == 1


def _entry(release: str, outcome: str = "passed") -> dict:
    return {
        "release": release,
        "torch": release,
        "date": "2026-01-01",
        "machine": {"platform": "p", "cpu": "c", "python": "3.11"},
        "summary": {"passed": 1, "failed": 0, "skipped": 0},
        "tests": {"docs/a.md::line 3": {"outcome": outcome, "fingerprint": "0" * 12}},
    }


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
        assert (
            matrix.main(
                [
                    "--release",
                    release,
                    "--part",
                    str(part),
                    "--record",
                    str(tmp_path / "untouched.json"),
                ]
            )
            == 0
        )
        parts.append(part)
    assert not (tmp_path / "untouched.json").exists()
    base = part_record(pinned, covered, {pinned: _entry(pinned, "failed")})
    for name in ("merged.json", "local.json"):
        (tmp_path / name).write_text(json.dumps(base))
    merged_file = str(tmp_path / "merged.json")
    assert matrix.main(["--merge", *map(str, parts), "--record", merged_file]) == 0
    assert (
        matrix.main(
            [
                "--release",
                covered[1],
                "--release",
                covered[2],
                "--record",
                str(tmp_path / "local.json"),
            ]
        )
        == 0
    )
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
    files = [
        *ROOT.glob("docs/**/*.md"),
        *ROOT.glob("docs/**/*.ipynb"),
        *ROOT.glob("snippets/**/*.py"),
        ROOT / "README.md",
    ]
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
PROPERTY_TESTS = """import pytest

from tests.claim_register import proves


@proves("always-true")
def test_always_true():
    assert True


@proves("in-a-fence")
def test_in_a_fence():
    assert True


@pytest.mark.cuda
@proves("on-a-gpu")
def test_on_a_gpu():
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
    claim = "\nOn a GPU, always.\n{ #claim-on-a-gpu }\n"
    (project / "docs" / "gpu.md").write_text(CUDA_PAGE + claim)
    blocks = extract_from_file(project / "docs" / "page.md")
    other = extract_from_file(project / "docs" / "other.md")[0]
    ids = [f"docs/page.md::line {b.lineno}" for b in blocks]
    prints = [block_fingerprint(b.code, b.expected_output) for b in blocks]
    before = [
        block_fingerprint(blocks[0].code.replace("# arithmetic", "# sums"), None),
        prints[1],
        block_fingerprint(blocks[2].code.replace("6", "7"), None),
    ]
    other_run = {
        "docs/other.md::line 3": {
            "outcome": "passed",
            "fingerprint": block_fingerprint(other.code, None),
        },
        "tests/test_claims_x.py::test_always_true": {"outcome": "passed"},
        # A CPU run skips a test marked cuda: that is no run of it.
        "tests/test_claims_x.py::test_on_a_gpu": {"outcome": "skipped", "message": "no GPU"},
    }

    def run(release: str, fingerprints: list[str], second: dict) -> dict:
        return {
            "date": "2026-01-01",
            "torch": release,
            "tests": {
                ids[0]: {"outcome": "passed", "fingerprint": fingerprints[0]},
                ids[1]: {**second, "fingerprint": fingerprints[1]},
                ids[2]: {"outcome": "passed", "fingerprint": fingerprints[2]},
                **other_run,
            },
        }

    differs = {"outcome": "failed", "message": 'prints "5" where the page shows "4"'}
    record = project / RECORD.relative_to(ROOT)
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps(
            {
                "pinned": "9.1.0",
                "covered": ["9.1.0", "9.0.0"],
                "releases": {
                    "9.1.0": run(
                        "9.1.0", [""] * 3, differs
                    ),  # the pin: verified by the suite itself
                    "9.0.0": run("9.0.0", before, differs),
                },
            }
        )
    )
    (project / "mkdocs.yml").write_text(
        yaml.safe_dump(
            {
                "site_name": "matrix",
                "strict": True,
                "nav": [{"Page": "page.md"}, {"Other": "other.md"}, {"GPU": "gpu.md"}],
                "markdown_extensions": ["toc", "attr_list"],
                "hooks": [
                    str(ROOT / "scripts" / "hooks" / name)
                    for name in ("matrix_notes.py", "page_facts.py")
                ],
            }
        )
    )
    proc = build_site(project, tmp_path / "out")
    assert proc.returncode == 0, proc.stdout[-2000:]
    page = (tmp_path / "out" / "page" / "index.html").read_text()
    head = page[page.index("</h1>") : page.index("<h3")]
    assert "<strong>Verified</strong>: 3 checks on torch 9.1.0" in head
    assert '<a href="#torch-matrix-details">1 differs on 9.0.0</a>' in head
    assert '<a href="#torch-matrix-details">1 not yet run on 9.0.0</a>' in head
    assert "admonition" not in head and head.count("<p") == 1, "one line, no box"
    note = "On PyTorch 9.0.0 this block prints <code>5</code> where the page shows <code>4</code>."
    assert page.index("4\n</code></pre>") < page.index(note) < page.index('id="3-the-third-claim"')
    # The list is collapsed (a reader's length, issue 49); the links' target sits inside it, so
    # following one opens it.
    assert '<details class="torch-matrix" data-search-exclude><summary>' in page
    assert page.index('<details class="torch-matrix" data-search-exclude>') < page.index(
        'id="torch-matrix-details"'
    )
    details = page[page.index('id="torch-matrix-details"') :]
    assert f'block at line {blocks[2].lineno} in <a href="#3-the-third-claim">' in details
    rows = page[page.index("<table data-search-exclude>") :].split("</tr>")[1:4]
    assert rows[0].count("<td>holds</td>") == 2
    assert "<td>holds</td><td><strong>differs</strong>: block at line" in rows[1]
    assert "<td>holds</td><td>not yet run</td>" in rows[2]
    other_page = (tmp_path / "out" / "other" / "index.html").read_text()
    assert '<p id="claim-always-true">' in other_page
    assert "<strong>Verified</strong>: 2 checks on torch 9.1.0 and 9.0.0" in other_page
    assert "torch-matrix-details" not in other_page
    # A page with a block and a claim's property test marked cuda and no GPU run in the record:
    # its CPU block counts on the pin, both CUDA checks are not yet run on a GPU (the skipped
    # property test counts on no CPU release), and nothing claims a GPU.
    gpu_page = (tmp_path / "out" / "gpu" / "index.html").read_text()
    facts = gpu_page[gpu_page.index('<p class="page-facts">') :]
    facts = facts[: facts.index("</p>")]
    assert "<strong>Verified</strong>: 1 check on torch 9.1.0" in facts
    assert '<a href="#torch-matrix-details">2 not yet run on a GPU</a>' in facts
    assert "GPU</a>" not in facts.replace("not yet run on a GPU</a>", "")
    assert (
        "Not yet run on a GPU (marked for CUDA, skipped on a CPU): block at line 8, property "
        "test test_on_a_gpu."
    ) in gpu_page


def test_reachable_cpu_paths_follow_the_cpu():
    """An AVX2 machine reaches the AVX2 path but not the AVX-512 ones; an AVX-512 VNNI machine
    reaches them all; an arm64 machine reaches only the paths without x86 settings."""
    every = list(matrix.CPU_PATHS)
    avx2 = matrix.reachable_paths({"avx2", "fma"}, "x86_64")
    assert avx2 == [p for p in every if p not in ("avx512", "onednn-vnni")]
    vnni = {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni"}
    assert matrix.reachable_paths(vnni, "x86_64") == every
    assert matrix.reachable_paths({"asimd", "bf16"}, "aarch64") == [
        "native",
        "aten-default",
        "no-onednn",
        "one-thread",
    ]
    epyc = {"cpu": "AMD EPYC, 2 logical CPUs", "flags": ["avx2", "f16c", "fma"]}
    assert re.fullmatch(
        r"x86_64/amd-epyc-[0-9a-f]{6}/avx2", matrix.path_key("avx2", "X86_64", epyc)
    )


def test_a_machine_is_its_cpu_model_and_kernel_flags():
    """Two machines with the same CPU model and flags share a name (the count of logical CPUs
    does not matter); another model, or one more kernel flag, makes another machine."""
    epyc = {"cpu": "AMD EPYC, 2 logical CPUs", "flags": ["avx2", "f16c", "fma"]}
    assert machine_id(epyc) == machine_id(
        {**epyc, "cpu": "AMD EPYC, 64 logical CPUs", "flags": ["fma", "f16c", "avx2"]}
    )
    assert machine_id(epyc) != machine_id({**epyc, "flags": ["avx2", "f16c", "fma", "avx512f"]})
    assert machine_id(epyc) != machine_id({**epyc, "cpu": "AMD EPYC 9654, 2 logical CPUs"})
    xeon = machine_id({"cpu": "Intel(R) Xeon(R) Processor, 2 logical CPUs", "flags": ["avx2"]})
    assert re.fullmatch(r"intel-xeon-processor-[0-9a-f]{6}", xeon)


EPYC = {
    "platform": "p",
    "cpu": "AMD EPYC, 2 logical CPUs",
    "flags": ["avx2", "f16c", "fma"],
    "python": "3.11",
}
XEON = {
    "platform": "p",
    "cpu": "Intel(R) Xeon(R) Processor, 2 logical CPUs",
    "flags": ["amx_bf16", "avx2", "avx512f"],
    "python": "3.11",
}


def _path_run(path: str, machine: dict, outcome: str = "passed") -> dict:
    return {
        **_entry("9.2.0", outcome),
        "path": path,
        "machine": machine,
        "runs": "kernels",
        "settings": {},
        "capability": "AVX2",
        "threads": 2,
        "onednn": True,
    }


def test_merging_keeps_cpu_path_runs_of_the_same_pin_only():
    covered = ["9.2.0", "9.1.3", "9.0.1"]
    paths = {
        p: _path_run(p, EPYC, "failed" if p == "native" else "passed") for p in ("native", "avx2")
    }
    base = part_record("9.2.0", covered, {}, {f"x86_64/{p}": run for p, run in paths.items()})
    new = part_record(
        "9.2.0",
        covered,
        {},
        {
            cpu_path_key("x86_64", EPYC, "native"): _path_run("native", EPYC),
            cpu_path_key("aarch64", EPYC, "native"): _path_run("native", EPYC),
        },
    )
    merged = merge_records(base, [new])
    assert sorted(merged["cpu_paths"]) == sorted(
        [
            cpu_path_key("aarch64", EPYC, "native"),
            cpu_path_key("x86_64", EPYC, "avx2"),
            cpu_path_key("x86_64", EPYC, "native"),
        ]
    )
    native = cpu_path_key("x86_64", EPYC, "native")
    assert merged["cpu_paths"][native] == new["cpu_paths"][native]  # the same machine: replaced
    assert sorted(merge_records({**base, "pinned": "9.1.0"}, [new])["cpu_paths"]) == sorted(
        new["cpu_paths"]
    )


def test_a_second_machine_s_cpu_paths_stand_beside_the_first():
    """A part made on another CPU (another model or other flags) adds its runs beside the
    record's, also when both were keyed by path only (the record's form before machines were
    told apart: migrated by the runs' own machine); the GPU runs of the record stay."""
    covered = ["9.2.0", "9.1.3", "9.0.1"]
    gpu = {"kind": "cuda", **_entry("2.11.0")}
    base = {
        **part_record("9.2.0", covered, {}, {"x86_64/native": _path_run("native", EPYC)}),
        "gpus": {"nvidia-h200/2.11.0+cu130": gpu},
    }
    xeon = part_record(
        "9.2.0",
        covered,
        {},
        {"x86_64/native": _path_run("native", XEON), "x86_64/avx512": _path_run("avx512", XEON)},
    )
    merged = merge_records(base, [xeon])
    assert sorted(merged["cpu_paths"]) == sorted(
        [
            cpu_path_key("x86_64", EPYC, "native"),
            cpu_path_key("x86_64", XEON, "native"),
            cpu_path_key("x86_64", XEON, "avx512"),
        ]
    )
    assert merged["cpu_paths"][cpu_path_key("x86_64", EPYC, "native")]["machine"] == EPYC
    assert merged["gpus"] == base["gpus"]
    assert migrate(base)["cpu_paths"] == {
        cpu_path_key("x86_64", EPYC, "native"): base["cpu_paths"]["x86_64/native"]
    }
    assert "x86_64/native" in base["cpu_paths"], "migrate returns a new record"


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
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert out == expected


def test_a_page_counts_the_cpu_paths_its_checks_passed_on(monkeypatch):
    """The facts line names how many CPU paths passed every check of the page, links the
    paths' table, and says on which path a check differs; the details list it."""
    from scripts.hooks import matrix_notes as hook

    check = hook.Check("docs/a.md::line 3", {"kind": "block", "name": 3}, "0" * 12, 3)
    failed = _path_run("native", EPYC, "failed")
    failed["tests"]["docs/a.md::line 3"]["message"] = "AssertionError: boom"
    keys = [
        cpu_path_key("x86_64", EPYC, "avx2"),
        cpu_path_key("x86_64", EPYC, "native"),
        cpu_path_key("x86_64", XEON, "native"),
        cpu_path_key("aarch64", EPYC, "native"),
    ]
    record = {
        "pinned": "9.2.0",
        "releases": {"9.2.0": _entry("9.2.0")},
        "cpu_paths": {
            keys[0]: _path_run("avx2", EPYC),
            keys[1]: _path_run("native", EPYC),
            keys[2]: _path_run("native", XEON),
            keys[3]: failed,
        },
    }
    state, paths = hook.status(record, [check]), hook.status(record, [check], "cpu_paths")
    assert state.passed == ["9.2.0"] and not state.failed and not state.pending
    assert sorted(paths.passed) == sorted(keys[:3])
    assert list(paths.failed) == [keys[3]]
    line, details = rendered(record, [check], [], "../claims/#cpu-kernel-paths")
    assert (
        'on torch 9.2.0 and <a href="../claims/#cpu-kernel-paths">3 CPU paths of 2 '
        "machines</a>" in line
    )
    assert f"1 differs on CPU path {keys[3]}" in line
    assert f"On CPU path {keys[3]}, block at line 3 fails with" in details
    assert f"<code>{keys[0]}</code>: kernels</td><td>none</td>" in hook.paths_table(record)


NESTED = """??? note "The code"
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
"""


def test_a_note_follows_a_block_or_its_output_inside_an_admonition_or_a_tab():
    """A block straight under ``??? note`` (no blank line, which CommonMark would read as a
    paragraph) gets its note after its expected output, and a block in a content tab after its
    closing fence, both indented as the block is; the front matter of the page's file shifts
    the checks' lines."""
    from pytest_codeblocks.main import extract_from_buffer

    from scripts.hooks import matrix_notes as hook

    front = "---\ntitle: T\n---\n"
    first, second = extract_from_buffer(io.StringIO(front + NESTED))
    checks = [
        hook.Check(
            f"docs/p.md::line {b.lineno}", {"kind": "block", "name": b.lineno}, None, b.lineno
        )
        for b in (first, second)
    ]
    state = hook.Status(
        checks,
        ["9.1.0"],
        {},
        {
            "9.0.0": [
                (checks[0], 'prints "5" where the page shows "4"'),
                (checks[1], "AssertionError: no"),
            ]
        },
    )
    lines = hook.block_notes(NESTED, front + NESTED, state, words("en")).splitlines()
    assert lines[8:11] == [
        "    ```",
        "",
        '    <p class="torch-matrix-difference">On PyTorch 9.0.0 this block prints <code>5</code>'
        " where the page shows <code>4</code>.</p>",
    ]
    assert lines[16:19] == [
        "    ```",
        "",
        '    <p class="torch-matrix-difference">On PyTorch 9.0.0 this block fails with '
        "<code>AssertionError: no</code>.</p>",
    ]
    assert lines[19:] == ["", "The end."]
    passing = hook.Status(checks, ["9.1.0"], {}, {})
    assert hook.block_notes(NESTED, front + NESTED, passing, words("en")) == NESTED


def test_an_edited_record_or_claims_module_is_read_again(tmp_path):
    """``mkdocs serve`` rebuilds in one process: a record or a property test module edited
    since the last build is read again (the reading is kept by file and modification time)."""
    from scripts.hooks import matrix_notes as hook
    from scripts.hooks.matrix_notes import read_record

    record, tests = tmp_path / RECORD.relative_to(ROOT), tmp_path / "tests" / "test_claims_a.py"
    record.parent.mkdir(parents=True)
    tests.parent.mkdir()
    assert read_record(tmp_path) == {} and hook.proofs_in_sources(tmp_path) == {}
    for k, pinned in enumerate(["9.0.0", "9.1.0"]):
        record.write_text(json.dumps({"pinned": pinned, "releases": {}}))
        tests.write_text(f"@proves('c{k}')\ndef test_a():\n    pass\n")
        for path in (record, tests):
            os.utime(path, ns=(k * 10**9, k * 10**9))
        assert read_record(tmp_path)["pinned"] == pinned
        assert hook.proofs_in_sources(tmp_path) == {
            f"c{k}": {"tests/test_claims_a.py::test_a": False}
        }


def test_the_build_imports_no_markdown_model_for_the_matrix():
    """The hook reads pages with the build's reader (markdown-it-py) and pymdownx.snippets, and the
    record with it: loading it loads no other module of the project."""
    code = (
        "import sys; import scripts.hooks.matrix_notes; "
        "print(sorted(m for m in sys.modules if m.startswith('scripts')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.replace("'", '"')) == [
        "scripts",
        "scripts.hooks",
        "scripts.hooks.markdown_blocks",
        "scripts.hooks.matrix_notes",
        "scripts.hooks.page_facts",
        "scripts.hooks.page_text",
    ]


def test_a_page_checks_its_blocks_included_snippets_and_claims_proofs(tmp_path):
    """A page's checks: each Python or shell block (not a ``text`` one), each ``snippets/*.py``
    it includes (once, whatever region; not a ``.out`` file, not an escaped include line), the
    property tests of the claim ids given, in that order."""
    from scripts.hooks import matrix_notes as hook

    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_claims_x.py").write_text(
        "from tests.claim_register import proves\n\n\n@proves('c')\ndef test_c():\n    pass\n"
    )
    for name in ("a.py", "a.out", "b.py", "c.py"):
        (tmp_path / "snippets" / name).write_text("print(1)\n")
    (tmp_path / "docs" / "p.md").write_text(
        '# P\n\n```python\nx = 1\n```\n\n```text\nno\n```\n\n```python\n--8<-- "snippets/a.py:one"'
        "\n```\n\n```python\n--8<-- 'snippets/a.py:two'\n--8<-- \"snippets/b.py\"\n```\n\n"
        '```text\n--8<-- "snippets/a.out"\n;--8<-- "snippets/c.py"\n```\n\n```sh\necho hi\n```\n'
    )
    ids = [
        c.test_id for c in hook.page_checks(tmp_path, {"releases": {}}, "p.md", ["c", "unknown"])
    ]
    snippet = "tests/test_snippets.py::test_snippet_runs_as_main_and_prints_its_golden_output"
    assert ids == [
        "docs/p.md::line 3",
        "docs/p.md::line 11",
        "docs/p.md::line 15",
        "docs/p.md::line 25",
        f"{snippet}[snippets/a.py]",
        f"{snippet}[snippets/b.py]",
        "tests/test_claims_x.py::test_c",
    ]


#: A made-up project with checks marked cuda and unmarked ones: a page, a property test file,
#: and a page and a README without any.
CUDA_PAGE = """# GPU

```python
assert 2 * 2 == 4
```

<!--pytest.mark.cuda-->
```python
import torch
assert torch.ones(1, device="cuda").item() == 1.0
```
"""
CUDA_TESTS = """import pytest


@pytest.mark.cuda
def test_on_the_gpu():
    assert True


def test_anywhere():
    assert True
"""
CUDA_PYPROJECT = """[tool.pytest.ini_options]
markers = ["cuda: needs a CUDA GPU"]
"""


def _cuda_project(root):
    (root / "docs").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "docs" / "gpu.md").write_text(CUDA_PAGE)
    (root / "docs" / "cpu.md").write_text("# CPU\n\n```python\nassert True\n```\n")
    (root / "README.md").write_text("# R\n\nSee `<!--pytest.mark.cuda-->` in a sentence.\n")
    (root / "tests" / "test_claims_gpu.py").write_text(CUDA_TESTS)
    (root / "tests" / "test_snippets.py").write_text("def test_x():\n    pass\n")
    (root / "pyproject.toml").write_text(CUDA_PYPROJECT)
    return root


H200 = {
    "name": "NVIDIA H200",
    "driver": "580.95.05",
    "cuda": "13.0",
    "capability": "9.0",
    "count": 1,
    "memory_gib": 139.8,
    "torch": "2.11.0+cu130",
    "python": "3.12.3",
}


def test_the_cuda_run_selects_exactly_the_checks_marked_cuda(tmp_path):
    """The CUDA selection is the files holding a marker above a fence or on a test (a marker
    quoted in a sentence does not count), and pytest's ``-m cuda`` runs the marked block and
    test only. Run here, on a CPU, with the CUDA run's own options: both are collected and
    skipped with the cuda marker's one reason, and the entry records them with the GPU given."""
    from tests.cuda_marker import CUDA_SKIP_REASON

    root = _cuda_project(tmp_path / "project")
    assert matrix.cuda_selection(root) == ["docs/gpu.md", "tests/test_claims_gpu.py"]
    entry = matrix.run_cuda(sys.executable, H200, root=root, log=lambda *a: None)
    block = "docs/gpu.md::line 8"
    assert sorted(entry["tests"]) == [block, "tests/test_claims_gpu.py::test_on_the_gpu"]
    for result in entry["tests"].values():
        assert result == {**result, "outcome": "skipped", "message": CUDA_SKIP_REASON}
    page = extract_from_file(root / "docs" / "gpu.md")[1]
    assert entry["tests"][block]["fingerprint"] == block_fingerprint(page.code, None)
    assert entry["gpu"] == {
        k: H200[k] for k in ("name", "driver", "cuda", "capability", "count", "memory_gib")
    }
    assert (entry["kind"], entry["torch"], entry["release"]) == ("cuda", "2.11.0+cu130", "2.11.0")
    assert entry["summary"] == {"passed": 0, "failed": 0, "skipped": 2}
    assert entry["selected"] == ["docs/gpu.md", "tests/test_claims_gpu.py"]
    assert "benchmark" not in entry


def test_without_a_gpu_the_cuda_run_says_so_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(matrix, "gpu_info", lambda python: None)
    record = tmp_path / "record.json"
    record.write_text('{"pinned": null, "releases": {}}')
    assert matrix.main(["--cuda", "--record", str(record)]) == 1
    assert (
        matrix.main(["--cuda", "--part", str(tmp_path / "part.json"), "--record", str(record)]) == 1
    )
    assert "no CUDA GPU" in capsys.readouterr().err
    assert record.read_text() == '{"pinned": null, "releases": {}}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_a_cuda_part_records_the_gpu_and_merges_beside_the_cpu_runs(tmp_path, monkeypatch, record):
    """``--cuda --part`` (GPU and checks faked: this machine has no GPU) writes a part with one
    GPU run keyed by GPU and torch, holding the GPU's name, driver, CUDA and torch with the
    outcomes, and the benchmark's run, whose data set lies beside the part; merged into the
    committed record it leaves the releases and CPU paths as they were."""
    outcomes = {"docs/gpu.md::line 8": {"outcome": "passed", "fingerprint": "0" * 12}}
    monkeypatch.setattr(matrix, "gpu_info", lambda python: H200)
    monkeypatch.setattr(matrix, "cuda_selection", lambda root=ROOT: ["docs/gpu.md"])
    monkeypatch.setattr(matrix, "missing_modules", lambda files, extra=(): [])
    monkeypatch.setattr(matrix, "_run_pytest", lambda *a, **k: (outcomes, 1.0))

    def benchmark(python, options, output, env, timeout):
        output.write_text("{}")
        return {"outcome": "passed", "seconds": 1.0, "output": output.name}

    monkeypatch.setattr(matrix, "run_benchmark", benchmark)
    base = tmp_path / "record.json"
    base.write_text(json.dumps(record))
    part = tmp_path / "gpu.json"
    assert matrix.main(["--cuda", "--part", str(part), "--record", str(base)]) == 0
    written = load_record(part)
    assert list(written["gpus"]) == ["nvidia-h200/2.11.0+cu130"]
    run = written["gpus"]["nvidia-h200/2.11.0+cu130"]
    assert run["gpu"]["name"] == "NVIDIA H200" and run["gpu"]["driver"] == "580.95.05"
    assert run["gpu"]["cuda"] == "13.0" and run["torch"] == "2.11.0+cu130"
    assert run["tests"] == outcomes and run["summary"]["passed"] == 1
    assert run["benchmark"]["sweep"]["output"] == "gpu-benchmark-sweep.json"
    assert (tmp_path / "gpu-benchmark-sweep.json").exists()
    assert set(run["benchmark"]) == set(matrix.benchmark_runs())
    assert not written["releases"] and not written["cpu_paths"]
    assert json.loads(base.read_text()) == record, "a part leaves the record as it is"
    assert matrix.main(["--merge", str(part), "--record", str(base)]) == 0
    merged = load_record(base)
    assert merged["gpus"] == {**record["gpus"], **written["gpus"]}
    assert merged["releases"] == record["releases"]
    assert merged["cpu_paths"] == record["cpu_paths"]
    # A GPU part made under another pin leaves the pin and the CPU runs as they are.
    other = {**written, "pinned": "1.0.0", "covered": ["1.0.0"]}
    assert merge_records(record, [other]) == merged


def _gpu_run(outcome: str, fingerprint: str) -> dict:
    return {
        "kind": "cuda",
        "torch": "2.11.0+cu130",
        "release": "2.11.0",
        "date": "2026-11-27",
        "gpu": {"name": "NVIDIA H200", "driver": "580.95.05", "cuda": "13.0"},
        "summary": {},
        "tests": {
            "docs/a.md::line 9": {
                "outcome": outcome,
                "fingerprint": fingerprint,
                **({"message": "AssertionError: no"} if outcome != "passed" else {}),
            }
        },
    }


@pytest.mark.parametrize(
    "gpu_run, verified",
    [
        (None, False),  # no GPU run at all
        (_gpu_run("passed", "1" * 12), True),
        (_gpu_run("passed", "2" * 12), False),  # the block changed since it ran on the GPU
        (_gpu_run("skipped", "1" * 12), False),  # a skip on a GPU is not a run
        (_gpu_run("failed", "1" * 12), False),
    ],
)
def test_the_facts_line_says_and_1_gpu_only_with_a_gpu_record(gpu_run, verified):
    """A page with one CPU block and one block marked cuda: the CPU count leaves the CUDA block
    out (it is skipped on every CPU); the line says "on torch 2.11.0+cu130 and 1 GPU" only when
    a GPU run passed the block as it is today, else "1 not yet run on a GPU" (or that it
    differs there), and the list at the end names the block."""
    from scripts.hooks import matrix_notes as hook

    checks = [
        hook.Check("docs/a.md::line 3", {"kind": "block", "name": 3}, "0" * 12, 3),
        hook.Check("docs/a.md::line 9", {"kind": "block", "name": 9}, "1" * 12, 9, cuda=True),
    ]
    record = {
        "pinned": "9.2.0",
        "releases": {"9.2.0": _entry("9.2.0")},
        "cpu_paths": {cpu_path_key("x86_64", EPYC, "native"): _path_run("native", EPYC)},
        "gpus": {"nvidia-h200/2.11.0+cu130": gpu_run} if gpu_run else {},
    }
    line, details = rendered(record, checks, [], "../claims/#cpu-kernel-paths")
    assert "<strong>Verified</strong>: 1 check on torch 9.2.0 and " in line
    assert (
        '1 CUDA check on torch 2.11.0+cu130 and <a href="../claims/#cpu-kernel-paths">'
        "1 GPU</a>" in line
    ) is verified
    assert (
        "GPU" in line.replace("not yet run on a GPU", "").replace("differs on GPU", "")
    ) is verified, "nothing else claims a GPU"
    if verified:
        assert "not yet run on a GPU" not in line and details == ""
    elif gpu_run and gpu_run["tests"]["docs/a.md::line 9"]["outcome"] == "failed":
        assert "1 differs on GPU NVIDIA H200 (torch 2.11.0+cu130)" in line
        assert "On GPU NVIDIA H200 (torch 2.11.0+cu130), block at line 9 fails with" in details
    else:
        assert '<a href="#torch-matrix-details">1 not yet run on a GPU</a>' in line
        assert "Not yet run on a GPU (marked for CUDA, skipped on a CPU): block at line 9" in (
            details
        )


def test_a_page_without_cuda_checks_says_nothing_of_a_gpu():
    from scripts.hooks import matrix_notes as hook

    checks = [hook.Check("docs/a.md::line 3", {"kind": "block", "name": 3}, "0" * 12, 3)]
    record = {
        "pinned": "9.2.0",
        "releases": {"9.2.0": _entry("9.2.0")},
        "cpu_paths": {},
        "gpus": {},
    }
    line, details = rendered(record, checks, [])
    assert "GPU" not in line and details == ""
    assert "No GPU run yet" in hook.paths_table(record)


NESTED_CUDA = """# P

<!--pytest.mark.cuda-->
Prose, not a fence.

```python
x = 1
```

??? note "On a GPU"

    <!-- pytest.mark.cuda -->

    ```python
    import torch
    ```

<!--pytest.mark.skip(reason="no")-->
```python
y = 2
```
"""


def test_the_blocks_marked_cuda_are_those_pytest_codeblocks_marks(tmp_path):
    """On every page, and on a made-up one (a marker before prose, which marks the next block
    all the same; one indented in a note with a blank line before its fence; another mark), the
    page's checks marked ``cuda`` are exactly the blocks pytest-codeblocks gives the ``cuda``
    mark."""
    from scripts.hooks import matrix_notes as hook

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "made-up.md").write_text(NESTED_CUDA)
    pages = {p.relative_to(ROOT / "docs").as_posix(): ROOT for p in (ROOT / "docs").rglob("*.md")}
    pages["made-up.md"] = tmp_path
    for name, root in sorted(pages.items()):
        text = (root / "docs" / name).read_text(encoding="utf-8")
        marked = {
            b.lineno
            for b in extract_from_buffer(io.StringIO(text))
            if any(re.fullmatch(r"pytest\.mark\.cuda(\(.*\))?", m.strip()) for m in b.marks)
        }
        checks = hook.page_checks(root, {"releases": {}}, name)
        assert {c.line for c in checks if c.cuda} == marked, name
    assert {
        c.line for c in hook.page_checks(tmp_path, {"releases": {}}, "made-up.md") if c.cuda
    } == {6, 14}


def test_a_page_knows_its_checks_marked_cuda(tmp_path):
    """A block with the marker above its fence, and a property test of a claim the page states
    decorated ``@pytest.mark.cuda``, are the page's CUDA checks; the others are not."""
    from scripts.hooks import matrix_notes as hook

    root = _cuda_project(tmp_path)
    (root / "tests" / "test_claims_gpu.py").write_text(
        "import pytest\nfrom tests.claim_register import proves\n\n\n@proves('g')\n"
        "@pytest.mark.cuda\ndef test_on_the_gpu():\n    pass\n\n\n@proves('g')\n"
        "def test_anywhere():\n    pass\n"
    )
    checks = {c.test_id: c.cuda for c in hook.page_checks(root, {"releases": {}}, "gpu.md", ["g"])}
    assert checks == {
        "docs/gpu.md::line 3": False,
        "docs/gpu.md::line 8": True,
        "tests/test_claims_gpu.py::test_anywhere": False,
        "tests/test_claims_gpu.py::test_on_the_gpu": True,
    }
    (root / "tests" / "test_claims_more.py").write_text(
        "import pytest\nfrom tests.claim_register import proves\n\npytestmark = [pytest.mark.cuda]"
        "\n\n\n@proves('g', 'h')\ndef test_a():\n    pass\n"
    )
    assert hook.proofs_in_sources(root) == {
        "g": {
            "tests/test_claims_gpu.py::test_on_the_gpu": True,
            "tests/test_claims_gpu.py::test_anywhere": False,
            "tests/test_claims_more.py::test_a": True,
        },
        "h": {"tests/test_claims_more.py::test_a": True},
    }


def test_wheels_a_gpu_machine_lacks_are_unpacked_for_the_run_and_others_left(tmp_path):
    """Of a folder of wheels, only those of distributions this Python lacks are unpacked (a
    wheel's ``purelib`` data beside its package); the unpacked folder, on the path, makes the
    module importable, which :func:`missing_modules` then sees."""
    import zipfile

    wheels, site = tmp_path / "wheels", tmp_path / "site"
    wheels.mkdir()
    site.mkdir()
    with zipfile.ZipFile(wheels / "zz_demo_dist-1.0-py3-none-any.whl", "w") as archive:
        archive.writestr("zz_demo_dist/__init__.py", "VALUE = 1\n")
        archive.writestr("zz_demo_dist-1.0.data/purelib/zz_demo_extra.py", "X = 2\n")
        archive.writestr("zz_demo_dist-1.0.dist-info/METADATA", "Name: zz-demo-dist\n")
    with zipfile.ZipFile(wheels / "pytest-0.0.1-py3-none-any.whl", "w") as archive:
        archive.writestr("pytest/__init__.py", "raise ImportError('shadowed')\n")
    assert matrix.unpack_wheels(wheels, site, log=lambda *a: None) == ["zz_demo_dist"]
    assert (site / "zz_demo_dist" / "__init__.py").exists()
    assert (site / "zz_demo_extra.py").exists()
    assert not (site / "pytest").exists(), "an installed distribution is not shadowed"
    names = dict(matrix.CUDA_RUN_NEEDS)
    try:
        matrix.CUDA_RUN_NEEDS["pytest-codeblocks"] = "zz_demo_dist"
        assert matrix.missing_modules(["docs/a.md"]) == ["pytest-codeblocks"]
        assert matrix.missing_modules(["docs/a.md"], [str(site)]) == []
    finally:
        matrix.CUDA_RUN_NEEDS.clear()
        matrix.CUDA_RUN_NEEDS.update(names)
    assert "zz_demo_dist" not in sys.modules


@pytest.mark.audit  # collects every page and test module of the matrix (about 15 s)
def test_the_cuda_selection_holds_every_check_pytest_marks_cuda(tmp_path):
    """pytest's own ``-m cuda`` over the whole matrix selection collects checks only from the
    files :func:`cuda_selection` finds, and from each page it finds: no marked check is left
    out of the GPU run, whatever way its marker is written."""
    out = tmp_path / "collected.json"
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-o",
        "addopts=",
        "-p",
        "tests.cuda_marker",
        "--codeblocks",
        "-p",
        "no:cacheprovider",
        "-p",
        "tests.torch_matrix_plugin",
        "-m",
        "cuda",
        "--collect-only",
        "-q",
        *matrix.selection(),
    ]
    proc = subprocess.run(
        args,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "TORCH_MATRIX_OUT": str(out)},
    )
    assert proc.returncode in (0, 5), proc.stdout[-2000:] + proc.stderr[-2000:]
    files = {test_id.split("::")[0] for test_id in json.loads(out.read_text())["collected"]}
    chosen = matrix.cuda_selection()
    assert files <= set(chosen), sorted(files - set(chosen))
    assert {f for f in chosen if f.endswith(".md")} <= files, "a page found holds no cuda check"


def test_the_model_scale_sweep_runs_where_the_benchmark_offers_it(tmp_path):
    program = tmp_path / "bench.py"
    program.write_text(
        'import argparse\np = argparse.ArgumentParser()\np.add_argument("--device")\n'
    )
    assert matrix.benchmark_runs(program) == {"sweep": ["--device", "cuda"]}
    program.write_text(program.read_text() + 'p.add_argument("--models", action="store_true")\n')
    assert matrix.benchmark_runs(program) == matrix.BENCHMARK_RUNS
    assert matrix.benchmark_runs(tmp_path / "none.py") == {}


def test_a_failing_notebook_is_recorded_by_its_cell_and_error():
    """nbmake's exception repeats the whole notebook; the record keeps the failing cell and what
    it raised, so a notebook that fails on an earlier release says why."""
    from nbmake.nb_result import NotebookError, NotebookResult
    from nbmake.pytest_items import NotebookFailedException

    from tests.torch_matrix_plugin import _error_message

    error = NotebookError(
        summary="AssertionError: ranks disagree", trace="Traceback ...", failing_cell_index=10
    )
    result = NotebookResult(nb={"cells": [{"source": "x" * 5000}]}, error=error)
    try:
        raise NotebookFailedException(result)
    except NotebookFailedException:
        excinfo = pytest.ExceptionInfo.from_current()
    item = type("NotebookItem", (), {})()
    assert _error_message(item, excinfo) == "cell 10: AssertionError: ranks disagree"
