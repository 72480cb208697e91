"""Time the contributor's loop with ``mkdocs serve``: the first page, an edited page, an edited
figure module.

Usage (from the repository root, with nothing else editing the files it touches)::

    python -m scripts serve-timing                 # 3 runs, caches in .cache/ as they are
    python -m scripts serve-timing --cold          # empty .cache/ before each run
    python -m scripts serve-timing --dirty         # mkdocs serve --dirty --no-strict
    python -m scripts serve-timing --runs 5 --page docs/sparsity.md \\
        --figures snippets/sparsity/figures.py

Each run starts ``mkdocs serve`` on a free port of 127.0.0.1 and measures, in seconds of wall
time:

* ``first page``: from the start of the command until the home page is served;
* ``page edit``: from appending a unique sentence to ``--page`` until the served page shows it;
* ``figure edit``: from appending a comment to ``--figures`` (its cache key changes, its output
  does not) until the server reloads the browsers; the run fails unless that module, and only
  that module, was drawn again (the figures hook logs what it draws).

Every edited file is restored (also on Ctrl-C), and each restore waits for the rebuild it
causes, so runs do not overlap. Prints each run and the medians; exit status 1 on a failure.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from scripts import ROOT
from scripts.checks.site import page_url_path

RELOAD = "Reloading browsers"


class Serve:
    """``mkdocs serve`` in the background, with every line it prints and when."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.lines: list[tuple[float, str]] = []
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}", *extra],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append((time.perf_counter(), line.rstrip("\n")))

    def get(self, path: str) -> str | None:
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:
                return response.read().decode("utf-8", errors="replace")
        except OSError:
            return None

    def wait_for(self, condition, timeout: float, what: str) -> float:
        """Poll ``condition()`` every 20 ms; return the time it first held (perf_counter)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mkdocs serve exited while waiting for {what}:\n{self.log()}")
            if condition():
                return time.perf_counter()
            time.sleep(0.02)
        raise TimeoutError(f"no {what} after {timeout:.0f} s:\n{self.log()}")

    def reloaded_after(self, since: float) -> bool:
        return any(t >= since and RELOAD in line for t, line in self.lines)

    def log(self, since: float = 0.0) -> str:
        return "\n".join(line for t, line in self.lines if t >= since)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def edit_and_wait(serve: Serve, path: Path, extra: str, shown, what: str, timeout: float):
    """Append ``extra`` to ``path``, wait until ``shown(since)`` holds, restore ``path`` and wait
    for the rebuild the restore causes. Returns (seconds until shown, the log of that rebuild)."""
    original = path.read_bytes()
    since = time.perf_counter()
    try:
        path.write_bytes(original + extra.encode("utf-8"))
        done = serve.wait_for(lambda: shown(since), timeout, what)
        rebuild_log = serve.log(since)
    finally:
        path.write_bytes(original)
    restored = time.perf_counter()
    serve.wait_for(lambda: serve.reloaded_after(restored), timeout, "rebuild after the restore")
    return done - since, rebuild_log


def one_run(
    n: int, page: Path, figures: Path, timeout: float, extra: tuple[str, ...] = ()
) -> dict[str, float]:
    serve = Serve(extra)
    try:
        first = serve.wait_for(lambda: serve.get("") is not None, timeout, "first page")
        serve.wait_for(
            lambda: serve.reloaded_after(0) or "Serving on" in serve.log(), timeout, "server start"
        )
        marker = f"Serve timing marker {n}-{time.time_ns()}."
        url = page_url_path(page.relative_to(ROOT / "docs").as_posix())
        page_s, _ = edit_and_wait(
            serve,
            page,
            f"\n\n{marker}\n",
            lambda since: marker in (serve.get(url) or ""),
            "edited page",
            timeout,
        )
        figure_s, rebuild = edit_and_wait(
            serve,
            figures,
            f"\n# serve timing {marker}\n",
            serve.reloaded_after,
            "rebuild after the figure edit",
            timeout,
        )
        rel = figures.relative_to(ROOT).as_posix()
        drawn = [ln for ln in rebuild.splitlines() if "figures: drawing" in ln]
        if len(drawn) != 1 or rel not in drawn[0] or "drawing 1 module" not in drawn[0]:
            raise RuntimeError(f"expected {rel}, and only it, to be drawn again:\n{rebuild}")
        return {"first page": first - serve.started, "page edit": page_s, "figure edit": figure_s}
    finally:
        serve.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="empty .cache/ before each run")
    parser.add_argument("--page", type=Path, default=Path("docs/lookup-tables.md"))
    parser.add_argument("--figures", type=Path, default=Path("snippets/lookup_tables/figures.py"))
    parser.add_argument("--timeout", type=float, default=300, help="seconds, per step")
    parser.add_argument(
        "--dirty",
        action="store_true",
        help="serve with --dirty --no-strict: rebuild only the edited page",
    )
    args = parser.parse_args(argv)
    results = []
    for n in range(1, args.runs + 1):
        if args.cold:
            shutil.rmtree(ROOT / ".cache", ignore_errors=True)
        try:
            result = one_run(
                n,
                ROOT / args.page,
                ROOT / args.figures,
                args.timeout,
                ("--dirty", "--no-strict") if args.dirty else (),
            )
        except (RuntimeError, TimeoutError) as exc:
            print(f"run {n}: {exc}", file=sys.stderr)
            return 1
        results.append(result)
        print(f"run {n}: " + ", ".join(f"{k} {v:.2f} s" for k, v in result.items()), flush=True)
    print(
        "median: "
        + ", ".join(f"{k} {statistics.median(r[k] for r in results):.2f} s" for k in results[0])
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
