"""Lighthouse audit of the built site: every page in the navigation, in both languages, offline.

Usage (from the repository root; needs Node.js with npm, and Chromium at /usr/bin/chromium)::

    python -m scripts lighthouse-audit

It builds the site strictly into ``site/``, serves it on 127.0.0.1 (text gzip-compressed, as
GitHub Pages serves it), runs Lighthouse (pinned in ``.ci/lighthouse/package-lock.json`` and
installed there with ``npm ci`` on first use) against every page listed in ``mkdocs.yml``'s
``nav``, in English (``/``) and in Chinese (``/zh/``), with Debian's Chromium and the browser
test's no-network flags, and prints a Markdown table of the performance, accessibility,
best-practices and SEO scores, plus accessibility in the dark palette (colour contrast differs
there), with the host's load average before each page was measured (each page first waits, up to
four minutes, for a 1-minute load average below ``--idle-load``, 0.5). It exits 1 when any score is
below ``--min`` (95, the score every page must reach in both languages), listing the audits that
fell short. Reports: ``site/_lighthouse/<page>.report.html`` (the median run) and
``<page>-dark.report.html``; a Chinese page's name starts with ``zh__``.

Lighthouse's default settings are used (a mid-range phone on a slow 4G network, simulated),
with three adjustments for measuring on a developer's machine, each explained where it is made:

* each page is loaded ``--runs`` times (5) and the run with the median performance score is
  reported, as Lighthouse advises for variable hosts (docs/variability.md);
* the CPU slowdown is calibrated to the host: Lighthouse's 4x assumes a machine of
  ``benchmarkIndex`` about 1500, and over-throttles a slower or busy one. With ``auto`` (the
  default) the median ``benchmarkIndex`` of a page's runs gives the multiplier, by the formula
  of Lighthouse's CPU throttling calculator (docs/throttling.md, "Calibrating multipliers"),
  never above 4x; ``--cpu-multiplier 4`` forces Lighthouse's own;
* Chrome's RenderDocument feature stays on (see :func:`launcher_disabled_features`).

This is not part of ``pytest``: it needs Node.js and a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scripts import ROOT
from scripts.checks.site import (
    BROWSER_INSTALL_HINT,
    CHROMIUM,
    CHROMIUM_ARGS,
    build_site,
    nav_pages,
    npm_ci,
    page_slug,
    page_url_path,
    serve,
)

LIGHTHOUSE_DIR = ROOT / ".ci" / "lighthouse"
LIGHTHOUSE = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
#: The lowest passing score, in every category: what each page must reach in both languages.
MIN_SCORE = 95
#: The Chinese edition's folder: every page of ``nav`` is built there too (scripts/hooks/zh.py).
LANGUAGE_PREFIXES = ["", "zh/"]
#: One Lighthouse run rarely needs a minute, even on a busy machine.
RUN_TIMEOUT_S = 300
#: The host's 1-minute load average a page waits for before its runs: an idle machine (the
#: project's decision for the scores it reports, issue 48).
IDLE_LOAD = 0.5
#: The longest a page waits for :data:`IDLE_LOAD`, in seconds: the 1-minute average of a
#: machine just left idle falls by half in about 42 s (its time constant is 60 s).
IDLE_WAIT_S = 240


def wait_for_idle(threshold: float, longest_s: float, poll_s: float = 5.0) -> float:
    """Wait until the host's 1-minute load average (``os.getloadavg``) is below ``threshold``, at
    most ``longest_s`` seconds, and return the load average then (above ``threshold`` when the
    wait ran out: the table reports it beside the page's scores)."""
    deadline = time.monotonic() + longest_s
    load = os.getloadavg()[0]
    if load >= threshold:
        print(f"  waiting for a load average below {threshold} (now {load:.2f}) ...", flush=True)
    while load >= threshold and time.monotonic() < deadline:
        time.sleep(poll_s)
        load = os.getloadavg()[0]
    return load


def ensure_lighthouse() -> None:
    """Install the pinned Lighthouse into ``.ci/lighthouse/node_modules`` when it is missing.

    Raises ``SystemExit`` with instructions when Node.js/npm or Chromium is missing, or npm fails.
    """
    if not CHROMIUM.is_file():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: {BROWSER_INSTALL_HINT}")
    if not LIGHTHOUSE.exists():
        npm_ci(LIGHTHOUSE_DIR, "Lighthouse", install_scripts=True)


def launcher_disabled_features() -> list[str]:
    """The Chrome features Lighthouse's launcher (chrome-launcher) disables, but RenderDocument.

    chrome-launcher starts Chrome with ``--disable-features=<list>``; Chrome honours only the
    last such flag, so passing this list again, without ``RenderDocument``, keeps every other
    feature off and gives RenderDocument back its default (on, as in readers' browsers). With it
    off, this headless Chromium (156) presents the first frame of a page 1 to 2 s after painting
    it, in most runs, and Lighthouse then times a first paint no reader would see (chrome-launcher
    turned it off for Lighthouse's own CI, GoogleChrome/lighthouse#16696; Puppeteer has since
    turned it back on, puppeteer/puppeteer#14745). Read from the installed chrome-launcher so
    that an upgrade cannot silently change the list; raises ``SystemExit`` when it is not there.
    """
    source = LIGHTHOUSE_DIR / "node_modules" / "chrome-launcher" / "dist" / "flags.js"
    code = re.sub(r"^\s*//.*$", "", source.read_text(encoding="utf-8"), flags=re.M)  # comments
    match = re.search(r"'--disable-features='\s*\+\s*\[(.*?)\]", code, re.S)
    if not match:
        raise SystemExit(f"cannot find the --disable-features list in {source}")
    return [f for f in re.findall(r"'([^']+)'", match.group(1)) if f != "RenderDocument"]


def quote_flag(flag: str) -> str:
    """``flag`` as one word of ``--chrome-flags``: a value holding spaces is quoted after its ``=``.

    Lighthouse splits ``--chrome-flags`` with yargs-parser (``parseChromeFlags`` in its
    ``cli/run.js``), which reads a wholly quoted ``"--rules=a b"`` that follows a bare flag such as
    ``--disable-quic`` as that flag's value (``--disable-quic=--rules=a b``): the rule would be
    lost, and the flag before it changed. ``--rules="a b"`` reaches Chrome as ``--rules=a b``.
    """
    name, equals, value = flag.partition("=")
    return f'{name}="{value}"' if equals and " " in value else flag


def chrome_flags(extra: tuple[str, ...] = ()) -> str:
    """The ``--chrome-flags`` value: headless, the browser test's flags, and RenderDocument on."""
    flags = [
        "--headless=new",
        *CHROMIUM_ARGS,
        "--disable-features=" + ",".join(launcher_disabled_features()),
        *extra,
    ]
    return " ".join(map(quote_flag, flags))


def _lighthouse(
    args: list[str],
    what: str,
    categories: list[str] = CATEGORIES,
    extra_flags: tuple[str, ...] = (),
) -> None:
    """Run the pinned Lighthouse CLI with Debian's Chromium; raise SystemExit when it fails."""
    proc = subprocess.run(
        [
            str(LIGHTHOUSE),
            *args,
            f"--only-categories={','.join(categories)}",
            f"--chrome-flags={chrome_flags(extra_flags)}",
            "--quiet",
        ],
        env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise SystemExit(f"Lighthouse failed {what}:\n{proc.stdout}\n{proc.stderr}")


def _report(out_stem: Path, url: str) -> dict:
    """The report Lighthouse wrote for ``out_stem``; SystemExit when it could not load the page."""
    lhr = json.loads(out_stem.with_name(out_stem.name + ".report.json").read_text(encoding="utf-8"))
    if lhr.get("runtimeError"):
        raise SystemExit(f"Lighthouse could not audit {url}: {lhr['runtimeError']}")
    return lhr


def audit_dark_accessibility(url: str, out_stem: Path) -> dict:
    """Lighthouse's accessibility audit of ``url`` in the dark palette; return the report.

    Chromium's ``--force-dark-mode`` makes the page see ``prefers-color-scheme: dark``, so
    Material opens in its dark ("slate") scheme, the one readers pick with the palette toggle;
    Lighthouse alone would only ever check the light scheme's colour contrast.
    """
    _lighthouse(
        [url, "--output=json", "--output=html", f"--output-path={out_stem}"],
        f"auditing {url} in the dark palette",
        ["accessibility"],
        ("--force-dark-mode",),
    )
    return _report(out_stem, url)


def audit_page(
    url: str, out_stem: Path, runs: int, cpu_multiplier: float | None
) -> tuple[dict, float]:
    """Load ``url`` ``runs`` times in Lighthouse and score each load.

    Returns the median report (LHR, a dict) and the median ``benchmarkIndex`` of the runs.

    The median is the run with the median performance score (Lighthouse's advice for variable
    hosts); its report is written to ``<out_stem>.report.{json,html}``. Lighthouse first gathers
    each run (``-G``: loads the page, records the trace and the host's ``benchmarkIndex``), then
    scores the saved artifacts (``-A``) with the CPU slowdown ``cpu_multiplier`` or, when that
    is ``None``, the one :func:`calibrated_multiplier` derives from the median ``benchmarkIndex``
    of this page's runs. With Lighthouse's default simulated throttling a trace is recorded
    unthrottled and the slowdown is applied only when scoring, so the multiplier saved with the
    artifacts (Lighthouse requires gather and audit settings to match) is rewritten to the chosen
    one without changing what was measured. Raises ``SystemExit`` when Lighthouse fails or could
    not load the page.
    """
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp:
        gathered = []
        for run in range(1, runs + 1):
            print(f"  loading it (run {run} of {runs}) ...", flush=True)
            folder = Path(tmp) / f"run{run}"
            _lighthouse(
                [url, f"-G={folder}", "--throttling.cpuSlowdownMultiplier=4"], f"loading {url}"
            )
            gathered.append(folder)
        indexes = [
            json.loads((f / "artifacts.json").read_text(encoding="utf-8"))["BenchmarkIndex"]
            for f in gathered
        ]
        multiplier = round(cpu_multiplier or calibrated_multiplier(statistics.median(indexes)), 2)
        reports = []
        for folder in gathered:
            artifacts_file = folder / "artifacts.json"
            artifacts = json.loads(artifacts_file.read_text(encoding="utf-8"))
            artifacts["settings"]["throttling"]["cpuSlowdownMultiplier"] = multiplier
            artifacts_file.write_text(json.dumps(artifacts), encoding="utf-8")
            _lighthouse(
                [
                    url,
                    f"-A={folder}",
                    f"--throttling.cpuSlowdownMultiplier={multiplier}",
                    "--output=json",
                    f"--output-path={folder / 'report.json'}",
                ],
                f"scoring {url}",
            )
            reports.append((folder, json.loads((folder / "report.json").read_text("utf-8"))))
        reports.sort(key=lambda r: r[1]["categories"]["performance"]["score"] or 0)
        folder, _ = reports[len(reports) // 2]
        _lighthouse(
            [
                url,
                f"-A={folder}",
                f"--throttling.cpuSlowdownMultiplier={multiplier}",
                "--output=json",
                "--output=html",
                f"--output-path={out_stem}",
            ],
            f"reporting {url}",
        )
    return _report(out_stem, url), statistics.median(indexes)


def lighthouse_version() -> str:
    """The Lighthouse version pinned in ``.ci/lighthouse/package-lock.json``."""
    lock = json.loads((LIGHTHOUSE_DIR / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/lighthouse"]["version"]


def calibrated_multiplier(benchmark_index: float) -> float:
    """The CPU slowdown for a host with ``benchmark_index``: Lighthouse's 4x, less on slow hosts.

    Piecewise-linear, as in Lighthouse's CPU throttling calculator
    (https://github.com/patrickhulce/lighthouse-cpu-throttling-calculator, linked from
    Lighthouse's docs/throttling.md): index 150 -> 1x, 800 -> 2x, 1300 -> 3x, 1533 -> 4x.
    Capped at Lighthouse's default 4x: the calculator goes on (2000 -> 6x), but the index of a
    shared machine jumps by hundreds between runs while the page load it should describe does
    not, and an over-throttled run is as wrong as an under-throttled one. Never below 1x.
    """
    if benchmark_index >= 1300:
        multiplier = 3 + (benchmark_index - 1300) / 233
    elif benchmark_index >= 800:
        multiplier = 2 + (benchmark_index - 800) / 500
    else:
        multiplier = 1 + (benchmark_index - 150) / 650
    return min(4.0, max(1.0, multiplier))


def failing_audits(lhr: dict, category: str) -> list[str]:
    """The scored audits of ``category`` that did not pass, as 'id (score): title' lines."""
    lines = []
    for ref in lhr["categories"][category]["auditRefs"]:
        audit = lhr["audits"][ref["id"]]
        if ref.get("weight", 0) and audit.get("score") is not None and audit["score"] < 1:
            value = f" [{audit['displayValue']}]" if audit.get("displayValue") else ""
            lines.append(f"{ref['id']} ({audit['score']:.2f}): {audit['title']}{value}")
    return lines


def audited_pages() -> list[str]:
    """Every page of ``nav`` in each language: ``index.md`` … then ``zh/index.md`` …

    A Chinese page is named by its path under the site root (``zh/lookup-tables.md``), as
    ``--page`` accepts it; :func:`scripts.checks.site.page_url_path` maps it to
    ``zh/lookup-tables/``.
    """
    return [prefix + page for prefix in LANGUAGE_PREFIXES for page in nav_pages()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--min",
        type=int,
        default=MIN_SCORE,
        help=f"lowest passing score (0-100; default {MIN_SCORE})",
    )
    parser.add_argument(
        "--site",
        type=Path,
        default=ROOT / "site",
        help="folder to build the site into (default: site/)",
    )
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="audit the site already built in --site instead of building it",
    )
    parser.add_argument(
        "--cpu-multiplier",
        default="auto",
        help="simulated CPU slowdown: 'auto' (calibrated to this host) or a number",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        help="Lighthouse runs per page; the median by performance is reported",
    )
    parser.add_argument(
        "--idle-load",
        type=float,
        default=IDLE_LOAD,
        help="before each page, wait (up to IDLE_WAIT_S, 240 s) for the host's 1-minute load "
        "average to fall below this (default %(default)s)",
    )
    parser.add_argument(
        "--page",
        action="append",
        default=None,
        help="audit only this nav page (e.g. lookup-tables.md, or "
        "zh/lookup-tables.md for its Chinese page); repeatable",
    )
    args = parser.parse_args(argv)

    ensure_lighthouse()
    site = args.site.resolve()
    if not args.no_build:
        print(f"building the site into {site}", flush=True)
        proc = build_site(ROOT, site)
        if proc.returncode != 0:
            raise SystemExit(f"mkdocs build --strict failed:\n{proc.stdout}")
    elif not (site / "index.html").is_file():
        raise SystemExit(f"no built site in {site}")
    reports = site / "_lighthouse"
    reports.mkdir(exist_ok=True)
    pages = args.page or audited_pages()

    fixed = None if args.cpu_multiplier == "auto" else float(args.cpu_multiplier)
    rows, failures = [], []
    with serve(site, compress=True) as base_url:
        for page in pages:
            url, stem = base_url + page_url_path(page), page_slug(page)
            print(f"auditing {page} ...", flush=True)
            load = wait_for_idle(args.idle_load, IDLE_WAIT_S)
            median, index = audit_page(url, reports / stem, args.runs, fixed)
            print(f"auditing {page} in the dark palette (accessibility only) ...", flush=True)
            dark = audit_dark_accessibility(url, reports / f"{stem}-dark")
            checks = [(c, median, c) for c in CATEGORIES]
            checks.append(("accessibility (dark)", dark, "accessibility"))
            scores = {}
            for label, lhr, category in checks:
                scores[label] = round(100 * (lhr["categories"][category]["score"] or 0))
                if scores[label] < args.min:
                    failures += [
                        f"{page} {label} {scores[label]}: {line}"
                        for line in failing_audits(lhr, category)
                    ]
            rows.append((page, scores, median, index, load))

    print(
        f"\nLighthouse {lighthouse_version()}: mobile, simulated slow 4G, CPU slowdown "
        f"{'calibrated per page' if fixed is None else fixed}; median of {args.runs} run(s) "
        f"by performance; minimum {args.min}; {os.cpu_count()} CPU cores on this host\n"
    )
    print(
        "| Page | Performance | Accessibility | Best practices | SEO | Accessibility (dark) "
        "| benchmarkIndex (median) | CPU slowdown | Load average before (1 min) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for page, scores, lhr, index, load in rows:
        cells = " | ".join(str(v) for v in scores.values())
        cpu = lhr["configSettings"]["throttling"]["cpuSlowdownMultiplier"]
        print(f"| {page} | {cells} | {index:.0f} | {cpu:.2f} | {load:.2f} |")
    print(f"\nreports: {reports}")
    if failures:
        print(f"\nbelow {args.min}:")
        print("\n".join(f"  {line}" for line in failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
