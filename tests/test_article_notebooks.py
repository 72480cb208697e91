"""Every article downloads as a notebook that runs (scripts/hooks/article_notebooks.py).

One audit per article (``python -m pytest -m audit``) executes its notebook the way nbmake
executes a notebook (a Jupyter kernel through nbclient, a failing cell fails the test), in a
temporary folder holding the data files the notebook reads, as the downloaded zip would unpack.
The notebooks are made by the same pure function the build hook calls, so no site is built here.
The other tests pin the conversion rules on a small made-up project.

Each notebook runs in a kernel of its own (:func:`run_notebook`): nothing one notebook leaves
behind, a failure included, reaches the next, so one failing notebook is one failed test
(:func:`test_one_failing_notebook_fails_one_test`).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import nbclient
import nbformat
import pytest
import yaml

from scripts.hooks.article_notebooks import (
    CUDA_NOTE,
    ROOT,
    SKIP_TAG,
    article_key,
    article_notebook,
    articles,
    downloads,
)

SITE_URL = "https://example.org/site/"
ARTICLES = articles(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"])


def run_notebook(notebook, folder: Path) -> None:
    """Execute ``notebook`` (nbformat 4, changed in place: its outputs) in a new ``python3``
    kernel with ``folder`` as its working directory; the kernel is shut down afterwards, whatever
    happened. Raises ``nbclient.exceptions.CellExecutionError`` at a failing cell,
    ``nbclient.exceptions.DeadKernelError`` when the kernel dies."""
    nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=110,
        allow_errors=False,
        resources={"metadata": {"path": str(folder)}},
    ).execute()


#: Three notebooks run one after another in one process, the middle one failing.
ONE_FAILS = r"""
import nbformat, pytest
from tests.test_article_notebooks import run_notebook

CELLS = {"before": "x = 1\nassert x == 1", "broken": "raise ValueError('on purpose')",
         "after": "import os\nassert 'x' not in dir()"}


@pytest.mark.parametrize("name", CELLS)
def test_notebook(name, tmp_path):
    run_notebook(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELLS[name])]),
                 tmp_path)
"""


@pytest.mark.audit  # beside the audit that runs each article's notebook in a kernel
def test_one_failing_notebook_fails_one_test(tmp_path):
    """A notebook that fails fails its own test only: the notebook run after it, in the same
    process, passes (a kernel reused across notebooks once turned one failure into a failed test
    for every later notebook of that worker)."""
    (tmp_path / "test_three.py").write_text(textwrap.dedent(ONE_FAILS))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-rA",
            "-q",
            str(tmp_path / "test_three.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=110,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    outcomes = sorted(
        line.split()[0] + " " + line.split("[")[1].split("]")[0]
        for line in proc.stdout.splitlines()
        if line.startswith(("PASSED ", "FAILED ")) and "[" in line
    )
    assert outcomes == ["FAILED broken", "PASSED after", "PASSED before"], proc.stdout[-3000:]


def test_every_article_is_listed():
    assert "lookup-tables.md" in ARTICLES and len(ARTICLES) >= 6


@pytest.mark.audit
@pytest.mark.parametrize("page", ARTICLES)
def test_article_notebook_runs(page, tmp_path):
    article = article_notebook(page, SITE_URL)
    assert article.ipynb_bytes() == article_notebook(page, SITE_URL).ipynb_bytes(), (
        f"{page}: two conversions differ; the site's download would change between builds"
    )
    kinds = [cell.cell_type for cell in article.notebook.cells]
    assert kinds.count("code") >= 3 and "markdown" in kinds
    # As a reader unpacks it: the zip's folder, or the notebook alone.
    for name, content in downloads(article).items():
        if name.endswith(".zip"):
            zipfile.ZipFile(io.BytesIO(content)).extractall(tmp_path)
            folder = tmp_path / article.name.removesuffix(".ipynb")
        else:
            (tmp_path / name).write_bytes(content)
            folder = tmp_path
    run_notebook(nbformat.read(folder / article.name, as_version=4), folder)


def _project(tmp_path: Path) -> Path:
    """A minimal repository: one page, one snippet file with a helper and a data file."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "snippets" / "demo").mkdir(parents=True)
    (root / "snippets" / "data").mkdir()
    (root / "snippets" / "data" / "words.txt").write_text("a b c\n")
    (root / "snippets" / "demo" / "count.py").write_text(
        '"""Counts words."""\n\nfrom __future__ import annotations\n\nfrom pathlib import Path\n\n'
        'TEXT = Path(__file__).resolve().parent.parent / "data" / "words.txt"\n'
        "LIMIT = 10\n\n\n"
        "def words():\n    return TEXT.read_text().split()\n\n\n"
        "def main():\n    # --8<-- [start:count]\n    n = len(words())\n    assert n < LIMIT\n"
        "    print(n)\n    # --8<-- [end:count]\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    (root / "docs" / "page.md").write_text(
        "---\ndescription: x\n---\n\n# Page { #top }\n\nSee [the other page](other.md#part) and "
        "[below](#here), `#!math x^2`.[^n]\n\n"
        '=== "Tab"\n\n    ```python title="snippets/demo/count.py — count"\n'
        '    --8<-- "snippets/demo/count.py:count"\n    ```\n\n'
        '    !!! note "Inside"\n\n        Nested.\n\n        ```python\n        nested = 1\n'
        "        ```\n\n"
        "```python\nLIMIT = 0  # a page block that rebinds the file's name\nprint(1)\n```\n\n"
        "<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n\n"
        '<!--pytest.mark.skip(reason="needs a CUDA GPU")-->\n\n```python\nimport torch\n'
        'torch.zeros(1, device="cuda")\nodd = r"[^x](y)"  # looks like Markdown, is code\n```\n\n'
        '```python title="snippets/demo/count.py — count again"\n'
        '--8<-- "snippets/demo/count.py:count"\n```\n\n'
        "![light](figures/page/f-light.svg#only-light){ loading=lazy }\n"
        "![dark](figures/page/f-dark.svg#only-dark){ loading=lazy }\n"
        "/// caption\nA figure.\n///\n\n"
        "```math\na = b\n```\n\n```math\na \\\\\nb\n```\n\n"
        "[^n]: A note\n    on two lines.\n"
    )
    return root


def test_conversion_rules(tmp_path):
    root = _project(tmp_path)
    article = article_notebook("page.md", SITE_URL, root)
    cells = [(c.cell_type, c.source) for c in article.notebook.cells]
    text = "\n".join(source for _, source in cells)
    code = [source for kind, source in cells if kind == "code"]
    shown = [source for kind, source in cells if kind == "markdown" and "```python" in source]
    # The tab's nested admonition's block, the page's block, then the file whole, once, after
    # its last include: each region is shown, not run; the skipped block is not run either.
    assert (
        code[:2]
        == ["nested = 1", "LIMIT = 0  # a page block that rebinds the file's name\nprint(1)"]
        and len(code) == 3
    ), code
    assert code[2].startswith('__file__ = "snippets/demo/count.py"  # ')
    file_cell = code[2].split("\n", 1)[1]
    assert (
        file_cell
        == (root / "snippets/demo/count.py")
        .read_text()
        .replace("    # --8<-- [start:count]\n", "")
        .replace("    # --8<-- [end:count]\n", "")
        .rstrip()
    )
    assert cells.index(("code", code[2])) > cells.index(("markdown", shown[1]))
    assert [s.count("n = len(words())") for s in shown] == [1, 0, 1] and "--8<--" not in text
    assert "*Not run in this notebook: needs a CUDA GPU.*" in shown[1] and 'device="cuda"' in text
    assert 'odd = r"[^x](y)"' in shown[1], "the code a Markdown cell shows is not rewritten"
    assert "```text\n1\n```" not in text, "an expected output is printed by its cell, not shown"
    assert "**Tab**" in text and "**Note: Inside**\n\nNested." in text
    assert f"]({SITE_URL}other/#part)" in text and f"]({SITE_URL}page/#here)" in text
    assert f"]({SITE_URL}figures/page/f-light.svg)" in text and "f-dark.svg" not in text
    assert "A figure." in text and "///" not in text
    assert "{ loading" not in text and "{ #top }" not in text, "attribute lists are the site's"
    assert "$x^2$" in text and "$$\na = b\n$$" in text
    assert "$$\n\\begin{gathered}\na \\\\\nb\n\\end{gathered}\n$$" in text
    assert "<sup>[n]</sup> A note\non two lines." in text and "# Page\n" in text
    assert "description:" not in text and "<!--" not in text
    assert article.data == {"snippets/data/words.txt": b"a b c\n"}
    # The zip unpacks to a folder where the notebook finds its data.
    ((name, content),) = downloads(article).items()
    archive = zipfile.ZipFile(io.BytesIO(content))
    assert name == "page.zip"
    assert sorted(archive.namelist()) == ["page/page.ipynb", "page/snippets/data/words.txt"]
    assert content == downloads(article_notebook("page.md", SITE_URL, root))["page.zip"]
    archive.extractall(tmp_path / "out")
    nb = nbformat.read(tmp_path / "out" / "page" / "page.ipynb", as_version=4)
    run_notebook(nb, tmp_path / "out" / "page")
    outputs = [c.outputs for c in nb.cells if c.cell_type == "code"]
    assert outputs[1][0]["text"] == "1\n"
    assert outputs[2][0]["text"] == "3\n"  # the file's own LIMIT, and its data found


def test_a_block_marked_cuda_is_a_cell_a_cpu_kernel_leaves_out(tmp_path):
    """A block marked ``<!--pytest.mark.cuda-->`` is a code cell holding its code as written,
    tagged for nbclient to skip, after a Markdown cell that says it needs a CUDA GPU; the
    notebook runs to its end in a kernel on this CPU (the cell left unrun, the next one run),
    as the article audits run it; no other cell is tagged."""
    root = _project(tmp_path)
    gpu = 'import torch\nx = torch.ones(2, device="cuda")\nassert x.sum().item() == 2.0'
    (root / "docs" / "page.md").write_text(
        f"# Page\n\n```python\nprint(1)\n```\n\nOn a GPU:\n\n<!--pytest.mark.cuda-->\n"
        f"```python\n{gpu}\n```\n\nAfter it.\n\n```python\nprint(2)\n```\n"
    )
    article = article_notebook("page.md", SITE_URL, root)
    cells = article.notebook.cells
    at = next(k for k, c in enumerate(cells) if c.source == gpu)
    assert cells[at].cell_type == "code" and cells[at].metadata == {"tags": [SKIP_TAG]}
    assert cells[at - 1].cell_type == "markdown" and cells[at - 1].source.endswith(CUDA_NOTE)
    assert [c.metadata for k, c in enumerate(cells) if k != at] == [{}] * (len(cells) - 1)
    assert article.ipynb_bytes() == article_notebook("page.md", SITE_URL, root).ipynb_bytes()
    notebook = nbformat.reads(article.ipynb_bytes().decode("utf-8"), as_version=4)
    run_notebook(notebook, tmp_path)
    outputs = [c.outputs for c in notebook.cells if c.cell_type == "code"]
    assert [o[0]["text"] if o else None for o in outputs] == ["1\n", None, "2\n"]


def test_a_notebook_without_data_is_downloaded_alone(tmp_path):
    root = _project(tmp_path)
    (root / "docs" / "page.md").write_text("# Page\n\n```python\nprint(2)\n```\n")
    article = article_notebook("page.md", SITE_URL, root)
    assert article.data == {}
    assert downloads(article) == {"page.ipynb": article.ipynb_bytes()}
    assert article.ipynb_bytes() == article_notebook("page.md", SITE_URL, root).ipynb_bytes()


def test_a_missing_region_is_an_error(tmp_path):
    root = _project(tmp_path)
    page = root / "docs" / "page.md"
    page.write_text(page.read_text().replace("count.py:count", "count.py:gone"))
    with pytest.raises(ValueError, match="page.md: .*'gone' could not be located"):
        article_notebook("page.md", SITE_URL, root)


def test_a_snippet_module_a_file_imports_ships_with_it(tmp_path):
    """A file that imports another snippet module runs from the zip, which holds that module (and
    the data the module reads)."""
    root = _project(tmp_path)
    (root / "snippets" / "demo" / "wrapped.py").write_text(
        "from snippets.demo import count\n\n\n"
        "def main():\n    with open(count.TEXT) as handle:\n"
        "        # --8<-- [start:read]\n        first = handle.read().split()[0]\n"
        "        # --8<-- [end:read]\n    assert first == 'a'\n    print(first)\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    (root / "docs" / "page.md").write_text(
        '# Page\n\n```python title="snippets/demo/wrapped.py — read"\n'
        '--8<-- "snippets/demo/wrapped.py:read"\n```\n'
    )
    article = article_notebook("page.md", SITE_URL, root)
    code = [c.source for c in article.notebook.cells if c.cell_type == "code"]
    assert len(code) == 1 and "from snippets.demo import count" in code[0]
    assert sorted(article.data) == ["snippets/data/words.txt", "snippets/demo/count.py"]
    folder = tmp_path / "out"
    zipfile.ZipFile(io.BytesIO(downloads(article)["page.zip"])).extractall(folder)
    nb = nbformat.read(folder / "page" / "page.ipynb", as_version=4)
    run_notebook(nb, folder / "page")
    assert nb.cells[-1].outputs[0]["text"] == "a\n"


def test_the_conversion_is_remembered_under_every_file_it_reads(tmp_path):
    """``mkdocs serve`` reuses a conversion while its digest is the same: the digest changes with
    the page, with a file the page includes (under snippets/ or not) and with a snippets/ file."""
    root = _project(tmp_path)
    (root / "notes.txt").write_text("one\n")
    page = root / "docs" / "page.md"
    page.write_text(page.read_text() + '\n```text\n--8<-- "notes.txt"\n```\n')
    digests = [article_key(root, "page.md", SITE_URL)]
    for path, text in [
        (root / "notes.txt", "two\n"),
        (page, page.read_text() + "More.\n"),
        (root / "snippets" / "data" / "words.txt", "a b\n"),
    ]:
        path.write_text(text)
        digests.append(article_key(root, "page.md", SITE_URL))
    assert len(set(digests)) == len(digests), "an edit left the digest unchanged"
    assert article_key(root, "page.md", SITE_URL) == digests[-1]


def test_the_stage_converts_articles_one_at_a_time_in_its_own_thread(tmp_path, monkeypatch):
    """markdown-it-py's link encoder (mdurl) fills a shared cache without a lock: two pages
    parsed at once in threads failed a cold build once (IndexError). So the execute stage
    converts the articles in the thread that runs it, one after another."""
    import threading

    from scripts.hooks import article_notebooks, execute

    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    for name in ("a.md", "b.md"):
        (tmp_path / "docs" / name).write_text(f"# {name}\n\nText.\n", encoding="utf-8")
    seen = []
    monkeypatch.setattr(
        article_notebooks,
        "converted",
        lambda page, site_url, root: (
            seen.append((page, threading.current_thread() is threading.main_thread()))
            or {f"{page[:-3]}/{page[:-3]}.zip": b"zip"}
        ),
    )
    execute.run(tmp_path, articles=("a.md", "b.md"), cache=tmp_path / ".cache")
    assert seen == [("a.md", True), ("b.md", True)]
