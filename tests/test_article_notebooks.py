"""Every article downloads as a notebook that runs (scripts/article_notebooks.py).

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

from scripts.article_notebooks import article_notebook
from scripts.hooks.article_notebooks import articles, downloads, zip_bytes
from scripts.markdown_model import ROOT

SITE_URL = "https://example.org/site/"
ARTICLES = articles(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"])


def run_notebook(notebook, folder: Path) -> None:
    """Execute ``notebook`` (nbformat 4, changed in place: its outputs) in a new ``python3``
    kernel with ``folder`` as its working directory; the kernel is shut down afterwards, whatever
    happened. Raises ``nbclient.exceptions.CellExecutionError`` at a failing cell,
    ``nbclient.exceptions.DeadKernelError`` when the kernel dies."""
    nbclient.NotebookClient(notebook, kernel_name="python3", timeout=110, allow_errors=False,
                            resources={"metadata": {"path": str(folder)}}).execute()


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


def test_one_failing_notebook_fails_one_test(tmp_path):
    """A notebook that fails fails its own test only: the notebook run after it, in the same
    process, passes (a kernel reused across notebooks once turned one failure into a failed test
    for every later notebook of that worker)."""
    (tmp_path / "test_three.py").write_text(textwrap.dedent(ONE_FAILS))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-o",
         "addopts=", "-rA", "-q", str(tmp_path / "test_three.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=110,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    outcomes = sorted(line.split()[0] + " " + line.split("[")[1].split("]")[0]
                      for line in proc.stdout.splitlines()
                      if line.startswith(("PASSED ", "FAILED ")) and "[" in line)
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
        '"""Counts words."""\n\nfrom pathlib import Path\n\n'
        'TEXT = Path(__file__).resolve().parent.parent / "data" / "words.txt"\n'
        "LIMIT = 10\n\n\n"
        "def words():\n    return TEXT.read_text().split()\n\n\n"
        "def main():\n    # --8<-- [start:count]\n    n = len(words())\n    assert n < LIMIT\n"
        "    print(n)\n    # --8<-- [end:count]\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    (root / "docs" / "page.md").write_text(
        "---\ndescription: x\n---\n\n# Page\n\nSee [the other page](other.md#part) and "
        "[below](#here), `#!math x^2`.\n\n"
        '=== "Tab"\n\n    ```python title="snippets/demo/count.py — count"\n'
        '    --8<-- "snippets/demo/count.py:count"\n    ```\n\n'
        "```python\nLIMIT = 0  # a page block that rebinds the file's name\nprint(1)\n```\n\n"
        "<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n\n"
        '<!--pytest.mark.skip(reason="needs a CUDA GPU")-->\n```python\nimport torch\n'
        'torch.zeros(1, device="cuda")\n```\n\n'
        '```python title="snippets/demo/count.py — count again"\n'
        '--8<-- "snippets/demo/count.py:count"\n```\n\n'
        "![light](figures/page/f-light.svg#only-light){ loading=lazy }\n"
        "![dark](figures/page/f-dark.svg#only-dark){ loading=lazy }\n\n"
        "```math\na = b\n```\n"
    )
    return root


def test_conversion_rules(tmp_path):
    root = _project(tmp_path)
    article = article_notebook("page.md", SITE_URL, root)
    cells = [(c.cell_type, c.source) for c in article.notebook.cells]
    text = "\n".join(source for _, source in cells)
    code = [source for kind, source in cells if kind == "code"]
    # The file's helpers, its region, the page's block, the file's LIMIT again, the region again.
    assert '__file__ = "snippets/demo/count.py"' in code[0] and "def words" in code[0]
    assert "def main" not in code[0] and "__main__" not in code[0]
    assert code[1].startswith("n = len(words())") and "--8<--" not in code[1]
    assert code[2].startswith("LIMIT = 0")
    assert code[3].endswith("\nLIMIT = 10"), "the page block's LIMIT = 0 is not undone"
    assert code[4] == code[1] and len(code) == 5, "the skipped GPU block must not be a code cell"
    assert "*Not run in this notebook: needs a CUDA GPU.*" in text and "device=\"cuda\"" in text
    assert "```text\n1\n```" not in text, "an expected output is printed by its cell, not shown"
    assert f"]({SITE_URL}other/#part)" in text and f"]({SITE_URL}page/#here)" in text
    assert f"]({SITE_URL}figures/page/f-light.svg)" in text and "f-dark.svg" not in text
    assert "$x^2$" in text and "$$\na = b\n$$" in text and "**Tab**" in text
    assert "description:" not in text and "<!--pytest" not in text
    assert article.data == {"snippets/data/words.txt": b"a b c\n"}
    # The zip unpacks to a folder where the notebook finds its data.
    archive = zipfile.ZipFile(io.BytesIO(zip_bytes(article)))
    assert sorted(archive.namelist()) == ["page/page.ipynb", "page/snippets/data/words.txt"]
    assert zip_bytes(article) == zip_bytes(article_notebook("page.md", SITE_URL, root))
    archive.extractall(tmp_path / "out")
    nb = nbformat.read(tmp_path / "out" / "page" / "page.ipynb", as_version=4)
    run_notebook(nb, tmp_path / "out" / "page")
    last = [c for c in nb.cells if c.source.startswith("n = len")][-1]
    assert last.outputs[0]["text"] == "3\n"  # the file's LIMIT again, and its data found


def test_a_missing_region_is_an_error(tmp_path):
    root = _project(tmp_path)
    page = root / "docs" / "page.md"
    page.write_text(page.read_text().replace("count.py:count", "count.py:gone"))
    with pytest.raises(ValueError, match="no region 'gone'"):
        article_notebook("page.md", SITE_URL, root)


def test_a_region_that_cannot_run_alone_is_shown_and_main_runs(tmp_path):
    """A region inside a ``with`` of main() reads a name no region binds: it is shown, and the
    file's main() runs whole after its last region. A module imported whole ships in the zip."""
    root = _project(tmp_path)
    (root / "snippets" / "demo" / "wrapped.py").write_text(
        "from snippets.demo import count\n\n\n"
        "def main():\n    with open(count.TEXT) as handle:\n"
        "        # --8<-- [start:read]\n        first = handle.read().split()[0]\n"
        "        # --8<-- [end:read]\n    assert first == 'a'\n    print(first)\n"
    )
    (root / "docs" / "page.md").write_text(
        '# Page\n\n```python title="snippets/demo/wrapped.py — read"\n'
        '--8<-- "snippets/demo/wrapped.py:read"\n```\n'
    )
    article = article_notebook("page.md", SITE_URL, root)
    code = [c.source for c in article.notebook.cells if c.cell_type == "code"]
    text = "\n".join(c.source for c in article.notebook.cells)
    assert "*From `main()` in `snippets/demo/wrapped.py`, which runs in full below.*" in text
    assert code[-1].startswith("def main():") and code[-1].endswith("\nmain()")
    assert "from snippets.demo import count" in code[0]  # kept: the module travels with it
    assert sorted(article.data) == ["snippets/data/words.txt", "snippets/demo/count.py"]
    folder = tmp_path / "out"
    zipfile.ZipFile(io.BytesIO(zip_bytes(article))).extractall(folder)
    nb = nbformat.read(folder / "page" / "page.ipynb", as_version=4)
    run_notebook(nb, folder / "page")
    assert nb.cells[-1].outputs[0]["text"] == "a\n"


def test_the_conversion_is_remembered_under_every_file_it_reads(tmp_path):
    """``mkdocs serve`` reuses a conversion while its digest is the same: the digest changes with
    the page, with a file the page includes (under snippets/ or not) and with a snippets/ file."""
    from scripts.hooks.article_notebooks import sources_digest

    root = _project(tmp_path)
    (root / "notes.txt").write_text("one\n")
    page = root / "docs" / "page.md"
    page.write_text(page.read_text() + '\n```text\n--8<-- "notes.txt"\n```\n')
    digests = [sources_digest(root, "page.md")]
    for path, text in [(root / "notes.txt", "two\n"), (page, page.read_text() + "More.\n"),
                       (root / "snippets" / "data" / "words.txt", "a b\n")]:
        path.write_text(text)
        digests.append(sources_digest(root, "page.md"))
    assert len(set(digests)) == len(digests), "an edit left the digest unchanged"
    assert sources_digest(root, "page.md") == digests[-1]
