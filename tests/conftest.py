"""Shared test settings, and the one build of the site that every test needing it shares.

``python -m pytest`` runs on every core (``-n auto`` in pyproject.toml, pytest-xdist): each worker
is a process of its own, so a session fixture runs once per worker. The site is built once per
run all the same: the first worker to ask for it builds it under a file lock into a folder all
workers share, and the others wait for it and read the same result. That worker then starts, in
the background, the second build that tests/test_site.py compares with the first.

Blocks on the pages seed their own random generators, so a reader who copies one gets the same
numbers as the page; nothing here changes what a block prints.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import matplotlib
import pytest
from filelock import FileLock
from hypothesis import HealthCheck, settings

from scripts import ROOT
from scripts.checks.site import (
    BROWSER_INSTALL_HINT,
    CHROMIUM,
    CHROMIUM_ARGS,
    build_site,
    docs_tree,
)

matplotlib.use("Agg")  # figures render without a display

# Hypothesis profiles for the property tests (tests/test_claims_*.py). "ci", the default, is
# derandomized (the same examples on every run), keeps no example database (nothing written to
# disk) and draws few examples, so that all property tests together take a few seconds of CPU.
# "thorough" searches twenty times further (minutes, not seconds; pytest-timeout's 120 s per test
# must be lifted):
#     python -m pytest tests/test_claims_*.py --hypothesis-profile thorough --timeout 0
# A failing example it finds is added to its test as an @example.
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=25, deadline=None, print_blob=True
)
settings.register_profile(
    "thorough",
    max_examples=500,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")

# The CUDA build of torch prints Kineto's progress (`USDT: ... profiler_start`) and, without a
# GPU, `gpuGetDeviceCount failed` to the terminal whenever a block or snippet runs
# torch.profiler. Levels above USDT (5, the highest) silence it; torch reads the variable when
# the first profiler starts, so setting it here, before any test runs, is in time.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder of this ``pytest`` run that every xdist worker shares.

    Each worker's own temporary folder is ``<run folder>/popen-gwN``; without xdist the run
    folder is the session's.
    """
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


#: The test that compares the shared build with a second build of the same sources (an audit).
#: When it is part of the run, the second build starts as soon as the first is done, in the
#: background.
BYTE_IDENTITY_TEST = "tests/test_site.py::test_two_builds_of_the_same_sources_are_byte_identical"
#: How long the comparison waits for the second build, in seconds (scripts/checks/site.py gives a
#: build 300 s; the first build comes before it).
SECOND_BUILD_WAIT = 660


def audit_run(session: pytest.Session) -> bool:
    """Whether this run holds an audit (``python -m pytest -m audit``): then the site is built as
    the Pages workflow builds it, the whole-site PDF printed after the build."""
    return any(item.get_closest_marker("audit") for item in session.items)


def print_pdf(site: Path, log: str) -> tuple[int, str]:
    """Print the built ``site``'s PDF (``python -m scripts site-pdf``); return its exit status
    and ``log`` with what it said appended as an INFO line when it succeeded (as-is otherwise,
    so the build test shows it)."""
    proc = subprocess.run(
        [sys.executable, "-m", "scripts", "site-pdf", "--site", str(site)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    said = proc.stdout.strip()
    said_lines = "".join(f"INFO    -  {line}\n" for line in said.splitlines())  # one per PDF
    return proc.returncode, log + (said_lines if proc.returncode == 0 else said)


def _notebook_cache() -> list[str]:
    """The executed notebooks kept in ``.cache/executed/`` (paths under it, sorted)."""
    folder = ROOT / ".cache" / "executed"
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.ipynb"))


def _second_build(shared: Path) -> None:
    """Build the site again into ``<shared>/site-again``, from the same executed notebooks (each
    is executed again by tests/test_notebooks.py), and write the record
    ``<shared>/site-again.json``: ``{"folder",
    "returncode", "log", "cache_before", "cache_after"}`` (``returncode`` ``None`` when the build
    raised; ``log`` then says why). The record is written whatever happens, atomically."""
    before = _notebook_cache()
    try:
        proc = build_site(ROOT, shared / "site-again")
        returncode, log = proc.returncode, proc.stdout
        if returncode == 0:
            returncode, log = print_pdf(shared / "site-again", log)
    except BaseException as error:  # noqa: BLE001 - the waiting test reports it
        returncode, log = None, f"the second build raised {error!r}"
    record = {
        "folder": str(shared / "site-again"),
        "returncode": returncode,
        "log": log,
        "cache_before": before,
        "cache_after": _notebook_cache(),
    }
    tmp = shared / "site-again.json.tmp"
    tmp.write_text(json.dumps(record))
    os.replace(tmp, shared / "site-again.json")


@pytest.fixture(scope="session")
def site_build(request, tmp_path_factory) -> dict:
    """The run's one site build: ``{"folder", "returncode", "log", "wrote_into_docs"}``.

    The first worker to ask builds; the others wait on the lock and read its record. In an audit
    run the build makes the PDF (:func:`audit_run`). When :data:`BYTE_IDENTITY_TEST` is in the
    run, that worker then starts the second build in a thread (:func:`_second_build`), and waits
    for it before it exits.
    """
    shared = run_folder(tmp_path_factory)
    dest, record = shared / "site", shared / "site-build.json"
    audits = audit_run(request.session)
    second = None
    with FileLock(shared / "site.lock"):
        if not record.exists():
            before = docs_tree()
            proc = build_site(ROOT, dest)
            returncode, log = proc.returncode, proc.stdout
            if audits and returncode == 0:
                returncode, log = print_pdf(dest, log)
            record.write_text(
                json.dumps(
                    {
                        "folder": str(dest),
                        "returncode": returncode,
                        "log": log,
                        "wrote_into_docs": docs_tree() != before,
                    }
                )
            )
            if proc.returncode == 0 and any(
                item.nodeid == BYTE_IDENTITY_TEST for item in request.session.items
            ):
                second = threading.Thread(
                    target=_second_build, args=(shared,), name="second-site-build", daemon=True
                )
                second.start()
    yield json.loads(record.read_text())
    if second is not None:
        second.join()


@pytest.fixture(scope="session")
def second_site_build(site, site_build, tmp_path_factory) -> dict:
    """The record of the second build (see :func:`_second_build`), once it is written; fails
    after :data:`SECOND_BUILD_WAIT` seconds without it."""
    record = run_folder(tmp_path_factory) / "site-again.json"
    deadline = time.monotonic() + SECOND_BUILD_WAIT
    while not record.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"no second site build after {SECOND_BUILD_WAIT} s: {record} is missing")
        time.sleep(0.2)
    return json.loads(record.read_text())


#: The one test that fails when the shared build fails or warns; every other test that needs the
#: site is skipped then, pointing to it, so one broken anchor reads as one failure.
BUILD_TEST = "tests/test_site.py::test_the_site_builds_strictly_with_a_clean_log"
#: Its counterpart in an audit run, whose build also prints the PDF.
AUDIT_BUILD_TEST = "tests/test_site_pdf.py::test_the_audited_build_is_clean_and_holds_the_pdf"


def build_problems(built: dict) -> list[str]:
    """What is wrong with a build record of :func:`site_build`, one line each: a non-zero exit
    status, each line of its log that is not an INFO line (warnings, errors, a traceback's last
    line), a write into ``docs/``. Empty for a good build."""
    problems = []
    if built["returncode"] != 0:
        problems.append(f"mkdocs build --strict exited with {built['returncode']}")
    problems += [
        ln.rstrip() for ln in built["log"].splitlines() if ln.strip() and not ln.startswith("INFO ")
    ]
    if built["wrote_into_docs"]:
        problems.append("the build wrote into docs/")
    return problems


@pytest.fixture(scope="session")
def site(site_build, request) -> Path:
    """The site, built once per run with ``mkdocs build --strict`` into a shared folder.

    Shared by ``tests/test_site.py``, ``tests/test_figures.py`` and ``tests/test_browser.py``, in
    every worker. When the build failed, printed anything but INFO lines, or wrote into
    ``docs/``, each test that needs the site is skipped with one line naming
    :data:`BUILD_TEST`, which fails with the build's messages. The build reuses the figures and
    notebook pages cached in ``.cache/`` by an earlier build of the same sources (see
    ``scripts/hooks/``): a clean checkout, as in CI, draws and executes everything.
    """
    if build_problems(site_build):
        pytest.skip(
            "needs the built site, whose build failed or warned: see "
            f"{AUDIT_BUILD_TEST if audit_run(request.session) else BUILD_TEST}"
        )
    return Path(site_build["folder"])


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium under Playwright; skipped (or failed, in CI) when missing.

    One per worker, shared by the browser test (tests/test_browser.py) and the first-load budget
    (tests/test_first_load.py): Playwright's synchronous API runs one instance per thread.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    missing = []
    if sync_playwright is None:
        missing.append("the Python package `playwright`")
    if not CHROMIUM.is_file():
        missing.append(f"Chromium at {CHROMIUM}")
    if missing:
        message = f"browser test needs {' and '.join(missing)}: {BROWSER_INSTALL_HINT}"
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(message + " (REQUIRE_BROWSER is set, so this is a failure, not a skip)")
        pytest.skip(message)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path | None:
    """``<run folder>/screenshots/``, where the browser test saves full-page screenshots of each
    page, light and dark, when ``BROWSER_SCREENSHOTS=1`` is set; None (no screenshots) otherwise.

    Outside the site folder, which tests compare byte for byte; named at the end of the run (see
    :func:`pytest_terminal_summary`).
    """
    if os.environ.get("BROWSER_SCREENSHOTS") != "1":
        return None
    folder = run_folder(tmp_path_factory) / "screenshots"
    folder.mkdir(exist_ok=True)
    return folder


def write_first_loads(terminalreporter) -> None:
    """Print the first-load bytes each page's index test recorded (tests/test_first_load.py),
    one table row per page, whether its test passed or failed; nothing when none ran."""
    from tests.test_first_load import BUDGET_BYTES, TABLE_PROPERTY, table_header

    rows = sorted(
        {
            value
            for outcome in ("passed", "failed")
            for report in terminalreporter.stats.get(outcome, [])
            for name, value in getattr(report, "user_properties", ())
            if name == TABLE_PROPERTY
        }
    )
    if not rows:
        return
    terminalreporter.write_sep(
        "-", f"first load per page, gzip (home pages' budget {BUDGET_BYTES:,} bytes)"
    )
    for line in [*table_header().splitlines(), *rows]:
        terminalreporter.write_line(line)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say where the browser test's screenshots are, when it took any; after the audits, print the
    state of the Chinese pages (``python -m scripts translations``), which never fails a run, and
    each page's first-load bytes (:func:`write_first_loads`)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if any(
        "audit" in getattr(r, "keywords", {})
        for outcome in ("passed", "failed", "skipped")
        for r in terminalreporter.stats.get(outcome, [])
    ):
        from scripts.commands.translations import main as translations

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            translations([])
        terminalreporter.write_sep("-", "Chinese edition: stale and missing sections")
        for line in out.getvalue().splitlines():
            terminalreporter.write_line(line)
    write_first_loads(terminalreporter)
    factory = getattr(config, "_tmp_path_factory", None)  # what xdist uses to place its workers
    if factory is None:
        return
    folder = factory.getbasetemp() / "screenshots"
    if any(folder.glob("*.png")):
        terminalreporter.write_line(f"browser screenshots: {folder}")


def _exit_at_once() -> None:
    """End this process now, with exit status 0: output flushed, interpreter not torn down."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """In a pytest-xdist worker, skip the interpreter's teardown when the process exits.

    A worker has sent every result by now, and its fixtures have shut down what they started
    (kernel, Chromium, servers, the second build). Freeing torch, transformers and the parsed
    pages object by object took the workers over two seconds, which the whole run waited for.
    Registered last, the handler runs first at exit (atexit runs handlers in reverse order).
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        atexit.register(_exit_at_once)
