"""Building the site and serving it locally, shared by the site tests, the browser test and the
Lighthouse audit (``python -m scripts lighthouse-audit``).

Nothing here is a test; ``tests/conftest.py`` wraps :func:`build_site` in the session fixture
``site`` so that the site is built once per ``pytest`` run, whichever tests ask for it.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import yaml

from scripts import ROOT


def build_site(
    project: Path,
    dest: Path,
    generator: str = "mkdocs",
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run ``<generator> build --strict`` for ``project`` into ``dest``; return the process.

    ``generator`` is ``"mkdocs"`` or ``"properdocs"`` (MkDocs' continuation, which reads the same
    ``mkdocs.yml``: see ``scripts/checks/properdocs_check.py``). Output (stdout and stderr together,
    text) is in ``.stdout``. ``env`` adds environment variables. Never raises on a failed build;
    raises
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds (a busy machine can need minutes).
    """
    return subprocess.run(
        [
            sys.executable,
            "-m",
            generator,
            "build",
            "--strict",
            "-f",
            str(project / "mkdocs.yml"),
            "-d",
            str(dest),
        ],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        # Material prints a notice about its end of life at every MkDocs command, to stderr,
        # when it is imported (material/templates/__init__.py), before any hook could set this.
        env={**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1", **(env or {})},
    )


def site_to_check(given: Path | None, scratch: Path) -> Path:
    """The built site a check reads: ``given``, or a strict build of the project made into
    ``scratch/site``. Raises ``RuntimeError`` with the build's last lines when it fails."""
    if given is not None:
        return given
    site = scratch / "site"
    proc = build_site(ROOT, site)
    if proc.returncode != 0:
        raise RuntimeError(f"the build failed:\n{proc.stdout[-3000:]}")
    return site


def npm_ci(folder: Path, what: str, install_scripts: bool = False) -> None:
    """Install the npm packages pinned in ``folder/package-lock.json`` into ``folder``
    (``npm ci``; the packages' install scripts run only with ``install_scripts``); ``what``
    names them in the progress line. Raises ``SystemExit`` when npm is missing,
    ``subprocess.CalledProcessError`` when it fails."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm not found: install Node.js 20 or newer (apt-get install nodejs npm)")
    print(f"installing {what} into {folder.relative_to(ROOT)} (npm ci)", flush=True)
    scripts = [] if install_scripts else ["--ignore-scripts"]
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", *scripts, "--loglevel=error"], cwd=folder, check=True
    )


def docs_tree() -> set[tuple[str, int]]:
    """Every file under docs/ with its modification time (ns), to prove a build writes nothing."""
    return {(p.as_posix(), p.stat().st_mtime_ns) for p in (ROOT / "docs").rglob("*") if p.is_file()}


def _nav_leaves(node):
    """The page paths under one node of mkdocs.yml's ``nav`` (a string, list or mapping)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _nav_leaves(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _nav_leaves(value)


def nav_pages(section: str | None = None) -> list[str]:
    """The Markdown files named in mkdocs.yml's ``nav`` (paths relative to docs/).

    With ``section`` (e.g. ``"Articles"``), only the pages under that top-level entry. Raises
    ``LookupError`` when the nav has no such section.
    """
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506
    nav = config["nav"]
    if section is not None:
        entries = [e[section] for e in nav if isinstance(e, dict) and section in e]
        if not entries:
            raise LookupError(f"mkdocs.yml's nav has no {section!r} section")
        nav = entries[0]
    return [p for p in _nav_leaves(nav) if not p.startswith(("http://", "https://"))]


def page_url_path(page: str) -> str:
    """The URL path of a nav page under the site root: ``""`` for index.md, ``"a/b/"`` for a/b.md.

    Matches MkDocs' default ``use_directory_urls: true`` (also for ``.ipynb`` pages).
    """
    stem = page.removesuffix(".md").removesuffix(".ipynb")
    if stem == "index":
        return ""
    return (stem.removesuffix("/index") if stem.endswith("/index") else stem) + "/"


def page_slug(page: str) -> str:
    """A file-name stem for a nav page: ``index``, ``lookup-tables``, ``notebooks__intro``.

    Names the browser test's screenshots and the Lighthouse audit's reports.
    """
    return page_url_path(page).strip("/").replace("/", "__") or "index"


def html_of(site: Path, page: str) -> Path:
    """The built HTML file of a nav page."""
    return site / page_url_path(page) / "index.html"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files from ``directory`` without logging every request to stderr."""

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


#: Files a static host such as GitHub Pages sends gzip-compressed to browsers that accept it.
COMPRESSIBLE = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".map"}


class _GzipHandler(_QuietHandler):
    """Like :class:`_QuietHandler`, but sends text files gzip-compressed, as GitHub Pages does.

    Used by the Lighthouse audit, whose network emulation would otherwise time transfers that no
    reader makes: the published site is compressed in transit by its host.
    """

    def do_GET(self):  # noqa: N802 - the base class's name
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts_gzip and path.suffix in COMPRESSIBLE and path.is_file()):
            return super().do_GET()
        body = gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        self.wfile.write(body)
        return None


@contextlib.contextmanager
def serve(directory: Path, compress: bool = False) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1, on a free port, from a background thread.

    Yields the base URL (``http://127.0.0.1:<port>/``). The server is threaded, because a browser
    opens several connections at once, and is shut down when the ``with`` block ends. With
    ``compress=True`` text files are sent gzip-compressed, as the published site's host sends them.
    """
    handler_class = _GzipHandler if compress else _QuietHandler
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


#: Debian's Chromium (``apt-get install chromium``), driven by the browser test, the PDF and
#: Lighthouse; ``CHROMIUM=<path>`` in the environment names another (the Pages workflow's Chrome).
#: Playwright is never asked to download a browser of its own.
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))

#: Flags for every Chromium this project starts: headless-friendly, and no traffic of Chromium's own
#: (no background updates, sync, QUIC probing or first-run pages), so the only requests made are
#: the page's. ``--host-resolver-rules`` makes every host name unresolvable, so even a request
#: that slipped past the tests' request filter could not leave the machine; the local server is
#: addressed by IP (127.0.0.1) and needs no resolver.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

#: What a contributor runs when Chromium or Playwright is missing.
BROWSER_INSTALL_HINT = (
    "install Chromium with `sudo apt-get install chromium` (Debian/Ubuntu; it must be at "
    f"{CHROMIUM}) and Playwright with `python -m pip install -r requirements.txt`"
)
