"""The torch matrix: run the site's executable content on each covered PyTorch release.

Usage, from the repository root (the project's virtual environment active)::

    python -m scripts torch-matrix                    # every covered release, then the record
    python -m scripts torch-matrix --release 2.13.0   # one release (the others stay as recorded)
    python -m scripts torch-matrix --list             # covered releases and newer ones; no run
    python -m scripts torch-matrix --list --json      # only the covered releases, as JSON
    python -m scripts torch-matrix --release 2.13.0 --part p.json  # a part, not the record
    python -m scripts torch-matrix --merge a.json b.json           # parts into the record
    python -m scripts torch-matrix --cpu-paths                     # the pin on each CPU path
    python -m scripts torch-matrix --cpu-paths avx2 --part p.json  # one path, as a part

Covered releases: the one pinned in ``requirements.txt`` and the latest patch of each of the two
minor releases before it, found on the package registry (``pip index versions torch``). For each,
an isolated virtual environment under ``.cache/torch-matrix/<release>/venv`` (reused while its
requirements are unchanged; ``--reinstall`` rebuilds it) gets ``requirements.txt`` with only the
torch pin replaced. There, pytest runs :data:`SELECTION` (every page block, the README's blocks,
every snippet, every notebook, the API map and the property tests; not the site build, browser,
figure and Lighthouse tests, whose results do not depend on the torch release) on two workers,
and :mod:`tests.torch_matrix_plugin` records each test's outcome.

The record, :data:`RECORD` (committed), holds per release: the release, the ``torch.__version__``
that ran, the date, the machine (platform, CPU, Python), and for every test id ``passed``,
``failed`` or ``skipped``, with the failure's first line or the skip reason, and the fingerprint
of what ran. The site build shows it on every page (``torch_matrix`` build hook): a check whose
fingerprint changed since the matrix ran is shown as not yet run on that release, never as a
failure of the test suite. Releases on the registry newer than the pin are listed at the end of
every run.

CPU kernel paths (``--cpu-paths``): PyTorch, MKL and oneDNN pick their kernels by what the CPU
has, and settings force that choice down, as PyTorch's own CI does (``ATEN_CPU_CAPABILITY`` in
``.ci/pytorch/test.sh``). :data:`CPU_PATHS` names each setting; the pinned release runs the same
selection under every path this machine can reach (:func:`reachable_paths`), and the record keeps
each run under ``cpu_paths``, keyed ``<machine>/<path>`` (``x86_64/avx2``), with the CPU's model,
its flags that decide kernels, and the ATen capability that the run reported. Pages say on which
paths their checks passed.

The GitHub workflow ``.github/workflows/torch-matrix.yml`` runs the same code on CI's runners:
one job per covered release (``--release X --part FILE``), then one job that merges the parts
into the record (``--merge``) and commits it. A local run merges the same way
(:func:`merge_records`), so the record has one producer.

Exit status: 0 when the record (or the part) was written (failing tests on an older release are
data, not an error), 1 when a release could not be installed or pytest crashed, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from packaging.version import Version

from scripts import ROOT
from scripts.build.matrix_record import RECORD, load_record, recorded  # noqa: F401 (re-exported)

REQUIREMENTS = ROOT / "requirements.txt"
#: Where the per-release virtual environments live (gitignored); TORCH_MATRIX_CACHE overrides.
CACHE = Path(os.environ.get("TORCH_MATRIX_CACHE", ROOT / ".cache" / "torch-matrix"))
#: The command that refreshes the record (quoted in messages).
COMMAND = "python -m scripts torch-matrix"
#: How many minor releases before the pinned one are covered.
EARLIER_MINORS = 2

#: What the matrix runs: paths and patterns given to pytest (``tests/test_claims_*.py`` is
#: expanded by :func:`selection`), relative to the repository root.
SELECTION = [
    "docs",  # every page's blocks (pytest-codeblocks) and every notebook (nbmake)
    "README.md",
    "tests/test_snippets.py",
    "tests/test_notebooks.py",
    "tests/test_api_map.py",  # the API map's defaults against the installed signatures
    "tests/test_claims_*.py",  # property-based proofs of the pages' general sentences
]
#: Tests of the selected files that build a site (slow, and not about the torch release).
DESELECT = [
    "tests/test_notebooks.py::test_a_failing_cell_fails_the_site_build",
]
#: pytest options of every matrix run: two workers, no cache folder written into the checkout,
#: and each notebook as a test (nbmake; a plain run executes them in a site build instead).
PYTEST_OPTIONS = ["-p", "no:cacheprovider", "-p", "tests.torch_matrix_plugin", "--nbmake", "-q",
                  "-n", "2"]


#: The variable that turns oneDNN off in every Python process of a run (see :func:`run_selection`).
NO_ONEDNN = "TORCH_MATRIX_NO_ONEDNN"
#: CPU kernel paths: name -> (what runs, the environment that forces it). Sources: PyTorch's
#: ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``, ``avx512``; ATen's native/DispatchStub.cpp),
#: MKL's ``MKL_ENABLE_INSTRUCTIONS``, oneDNN's ``ONEDNN_MAX_CPU_ISA`` and ``OMP_NUM_THREADS``.
CPU_PATHS: dict[str, tuple[str, dict[str, str]]] = {
    "native": ("the CPU's own choice of kernels", {}),
    "avx2": ("AVX2 kernels in ATen, MKL and oneDNN",
             {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
              "ONEDNN_MAX_CPU_ISA": "AVX2"}),
    "avx512": ("ATen's AVX-512 kernels", {"ATEN_CPU_CAPABILITY": "avx512"}),
    "onednn-vnni": ("oneDNN below its bfloat16 instructions",
                    {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_VNNI"}),
    "aten-default": ("ATen's kernels without vector extensions",
                     {"ATEN_CPU_CAPABILITY": "default"}),
    "no-onednn": ("oneDNN switched off (torch.backends.mkldnn.enabled = False)", {NO_ONEDNN: "1"}),
    "one-thread": ("one thread", {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}),
}
#: The x86 flags (``/proc/cpuinfo``) a path needs: without them it runs what ``native`` runs.
PATH_NEEDS = {
    "avx2": {"avx2"},
    "avx512": {"avx512f", "avx512bw", "avx512vl", "avx512dq"},
    "onednn-vnni": {"avx512_vnni"},
}
#: The CPU flags recorded with each run: those that decide which kernels run.
KERNEL_FLAGS = ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq",
                "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "avx_ne_convert",
                "amx_tile", "amx_bf16", "amx_fp16", "asimd", "asimddp", "bf16", "i8mm", "sve",
                "sve2", "sme")
#: ``sitecustomize`` for the ``no-onednn`` path: every Python process of the run (pytest and its
#: workers, snippet subprocesses, notebook kernels) starts with oneDNN switched off.
_NO_ONEDNN_SITE = (
    "import os\n"
    f"if os.environ.get({NO_ONEDNN!r}) == '1':\n"
    "    import torch\n"
    "    torch.backends.mkldnn.enabled = False\n"
)


def cpu_flags() -> set[str]:
    """This machine's CPU flags (``/proc/cpuinfo``'s ``flags`` on x86 Linux, ``Features`` on
    Arm Linux); empty where there is no such file."""
    path = Path("/proc/cpuinfo")
    if not path.exists():
        return set()
    found = re.search(r"^(?:flags|Features)\s*:\s*(.*)$", path.read_text(), re.MULTILINE)
    return set(found.group(1).split()) if found else set()


def reachable_paths(flags: set[str], arch: str) -> list[str]:
    """The :data:`CPU_PATHS` a machine of architecture ``arch`` (``platform.machine()``) with
    CPU ``flags`` can run, in :data:`CPU_PATHS`' order: the x86 settings need x86 and the flags
    of :data:`PATH_NEEDS`; ``native``, ``aten-default``, ``no-onednn`` and ``one-thread`` run
    everywhere."""
    x86 = arch.lower() in ("x86_64", "amd64")
    out = []
    for name, (_, env) in CPU_PATHS.items():
        x86_only = any(k in env for k in ("MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA")) or (
            env.get("ATEN_CPU_CAPABILITY", "default") != "default")
        if x86_only and not (x86 and PATH_NEEDS.get(name, set()) <= flags):
            continue
        out.append(name)
    return out


def path_key(name: str, arch: str | None = None) -> str:
    """The record's key of a run of the CPU path ``name`` on this machine: ``x86_64/avx2``."""
    return f"{(arch or platform.machine()).lower()}/{name}"


def selection(root: Path = ROOT) -> list[str]:
    """The pytest arguments that select the matrix's tests: paths that exist under ``root``
    (glob patterns expanded, sorted) followed by ``--deselect`` options."""
    args: list[str] = []
    for pattern in SELECTION:
        matches = sorted(p.relative_to(root).as_posix() for p in root.glob(pattern))
        args.extend(matches)
    for test_id in DESELECT:
        args.extend(["--deselect", test_id])
    return args


def pinned_release(requirements: Path = REQUIREMENTS) -> str:
    """The torch release pinned in ``requirements.txt`` (``torch==X``), e.g. ``"2.15.0"``.

    Raises ``ValueError`` when there is no exact torch pin."""
    match = re.search(r"^torch==(\S+)\s*(#.*)?$", requirements.read_text(), re.MULTILINE)
    if match is None:
        raise ValueError(f"{requirements} has no line torch==<release>")
    return match.group(1)


def registry_releases() -> list[str]:
    """Final releases of torch on the package registries pip is configured with, newest first
    (local builds such as ``2.13.0+cpu`` are folded into their public version; pre-releases are
    left out). Asks ``pip index versions torch --json``; raises ``RuntimeError`` when pip fails."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "torch", "--json"],
        capture_output=True, text=True, timeout=300,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"pip index versions torch failed:\n{proc.stderr[-2000:]}")
    versions = {Version(v).public for v in json.loads(proc.stdout)["versions"]}
    final = [v for v in versions if not Version(v).is_prerelease and not Version(v).is_devrelease]
    return sorted(final, key=Version, reverse=True)


def covered_releases(pinned: str, available: list[str]) -> list[str]:
    """The pinned release, then the latest patch of each of the :data:`EARLIER_MINORS` minor
    releases before it that ``available`` has (newest first), e.g. ``2.15.0`` with 2.14.0,
    2.14.1, 2.13.0 available gives ``["2.15.0", "2.14.1", "2.13.0"]``."""
    pin = Version(pinned)
    latest: dict[tuple[int, int], Version] = {}
    for text in available:
        v = Version(text)
        if (v.major, v.minor) < (pin.major, pin.minor):
            latest[(v.major, v.minor)] = max(latest.get((v.major, v.minor), v), v)
    earlier = [str(latest[key]) for key in sorted(latest, reverse=True)[:EARLIER_MINORS]]
    return [pinned, *earlier]


def newer_than(pinned: str, available: list[str]) -> list[str]:
    """Releases in ``available`` newer than ``pinned``, newest first."""
    return [v for v in available if Version(v) > Version(pinned)]


def requirements_for(release: str, requirements: Path = REQUIREMENTS) -> str:
    """``requirements.txt`` with the torch pin replaced by ``torch==<release>`` (text)."""
    return re.sub(r"^torch==\S+", f"torch=={release}", requirements.read_text(), flags=re.MULTILINE)


def ensure_venv(release: str, reinstall: bool = False, log=print) -> Path:
    """The Python of ``release``'s environment, created or updated when needed.

    The environment is reused as it is when the requirements it was built from (kept beside it
    as ``requirements.txt``) equal today's with the pin replaced. Raises
    ``subprocess.CalledProcessError`` when ``venv`` or ``pip install`` fails (pip's output is in
    ``<cache>/<release>/install.log``)."""
    home = CACHE / release
    venv, stamp, log_file = home / "venv", home / "requirements.txt", home / "install.log"
    python = venv / "bin" / "python"
    wanted = requirements_for(release)
    if reinstall and venv.exists():
        shutil.rmtree(venv)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    home.mkdir(parents=True, exist_ok=True)
    if not python.exists():
        log(f"[{release}] creating {venv.relative_to(CACHE.parent)}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pending = home / "requirements.pending.txt"
    pending.write_text(wanted)
    log(f"[{release}] pip install -r requirements.txt with torch=={release} "
        f"(log: {log_file}; the first time, several minutes and up to ~6 GB)")
    started = time.monotonic()
    with log_file.open("w") as out:
        for args in (["--upgrade", "pip"], ["-r", str(pending)]):
            subprocess.run([str(python), "-m", "pip", "install", "-q", *args], cwd=ROOT,
                           stdout=out, stderr=subprocess.STDOUT, check=True)
    pending.replace(stamp)
    log(f"[{release}] installed in {time.monotonic() - started:.0f} s")
    return python


def machine() -> dict[str, str]:
    """Where the matrix ran: platform, CPU model and count, the CPU's flags that decide kernels
    (:data:`KERNEL_FLAGS`), Python version."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = re.findall(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        if names:
            cpu = names[0].strip()
    return {
        "platform": platform.platform(terse=True),
        "cpu": f"{cpu}, {os.cpu_count()} logical CPUs",
        "flags": sorted(cpu_flags() & set(KERNEL_FLAGS)),
        "python": platform.python_version(),
    }


def pinned_python(pinned: str, reinstall: bool = False) -> Path:
    """The Python that runs the pinned release: this one when it has exactly that torch (the
    project's environment), else the matrix's environment for it (:func:`ensure_venv`)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        here = Version(version("torch")).public
    except PackageNotFoundError:
        here = None
    if here == pinned and not reinstall:
        return Path(sys.executable)
    return ensure_venv(pinned, reinstall=reinstall)


def run_release(release: str, python: Path, log=print) -> dict:
    """Run :func:`selection` with ``python`` (an environment holding ``release``) and return the
    record's entry for it (:func:`run_selection`)."""
    return run_selection(f"[{release}]", release, python, {}, log=log)


def run_cpu_path(name: str, python: Path, release: str, log=print) -> dict:
    """Run :func:`selection` on ``release`` (held by ``python``) under the CPU path ``name`` of
    :data:`CPU_PATHS` and return the record's entry for it: :func:`run_selection`'s, with the
    path's name, what it runs and its settings."""
    what, env = CPU_PATHS[name]
    entry = run_selection(f"[{path_key(name)}]", release, python, env, log=log)
    return {**entry, "path": name, "runs": what, "settings": dict(env)}


def run_selection(label: str, release: str, python: Path, settings: dict[str, str],
                  log=print) -> dict:
    """Run :func:`selection` with ``python`` (an environment holding ``release``), the
    environment variables ``settings`` added, and return a record entry: the release, the
    ``torch.__version__`` that ran, the ATen CPU capability it reported, the date, the machine
    and every test's outcome. Raises ``RuntimeError`` when pytest stops without results (exit
    status other than 0 or 1: interrupted, internal error, usage error, nothing collected)."""
    with tempfile.TemporaryDirectory(prefix="torch-matrix-") as tmp:
        out = Path(tmp) / "outcomes.json"
        site = Path(tmp) / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(_NO_ONEDNN_SITE, encoding="utf-8")
        env = {**os.environ, "TORCH_MATRIX_OUT": str(out),
               "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
               "HF_HUB_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1", **settings}
        env.pop("VIRTUAL_ENV", None)
        version = subprocess.run(
            [str(python), "-c", "import torch, platform; print(torch.__version__); "
             "print(platform.python_version()); print(torch.backends.cpu.get_cpu_capability()); "
             "print(torch.get_num_threads()); print(torch.backends.mkldnn.enabled)"],
            capture_output=True, text=True, check=True, env=env, cwd=ROOT,
        ).stdout.split()
        log(f"{label} pytest on torch {version[0]} (ATen capability {version[2]}, "
            f"{version[3]} threads, oneDNN {'on' if version[4] == 'True' else 'off'}) ...")
        started = time.monotonic()
        proc = subprocess.run(
            [str(python), "-m", "pytest", *PYTEST_OPTIONS, *selection()],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
        seconds = time.monotonic() - started
        if proc.returncode not in (0, 1) or not out.exists():
            raise RuntimeError(f"{label} pytest exited with {proc.returncode}:\n"
                               f"{(proc.stdout + proc.stderr)[-3000:]}")
        outcomes = json.loads(out.read_text())["outcomes"]
    summary = {k: sum(t["outcome"] == k for t in outcomes.values())
               for k in ("passed", "failed", "skipped")}
    log(f"{label} {summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['skipped']} skipped in {seconds:.0f} s")
    for test_id, entry in sorted(outcomes.items()):
        if entry["outcome"] == "failed":
            log(f"    FAILED {test_id}: {entry.get('message', '')}")
    return {
        "release": release,
        "torch": version[0],
        "capability": version[2],
        "threads": int(version[3]),
        "onednn": version[4] == "True",
        "date": dt.date.today().isoformat(),
        "machine": {**machine(), "python": version[1]},
        "summary": summary,
        "tests": dict(sorted(outcomes.items())),
    }


def write_record(record: dict, path: Path = RECORD) -> None:
    """Write the record as sorted, indented JSON (stable diffs), ending with a newline."""
    path.write_text(json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")


def selection_digest() -> str:
    """12 hex digits identifying :data:`SELECTION` and :data:`DESELECT` (recorded, so a changed
    selection is visible in the record's diff)."""
    return hashlib.sha256(json.dumps([SELECTION, DESELECT]).encode()).hexdigest()[:12]


def part_record(pinned: str, covered: list[str], entries: dict[str, dict],
                paths: dict[str, dict] | None = None) -> dict:
    """A record holding the runs ``entries`` (``{release: entry}``, as :func:`run_release` returns
    them) of a matrix that covers ``covered`` for the pin ``pinned``, and the runs of the pin on
    CPU paths ``paths`` (``{"x86_64/avx2": entry}``, as :func:`run_cpu_path` returns them): what
    one CI job uploads, and what a local run merges into the committed record."""
    return {
        "command": COMMAND,
        "pinned": pinned,
        "covered": list(covered),
        "selection": selection_digest(),
        "releases": dict(entries),
        "cpu_paths": dict(sorted((paths or {}).items())),
    }


def merge_records(base: dict, parts: list[dict]) -> dict:
    """The record after ``parts`` (records of one or more releases each, :func:`part_record`) are
    merged into ``base`` (the committed record; ``{}`` for none).

    The parts must agree with each other on the pin and the covered releases, and hold only
    covered releases; a release in several parts takes the last one. The result covers the parts'
    releases, with each covered release's run from the parts, else from ``base`` when ``base``
    was made for the same pin; runs of releases no longer covered are dropped. Raises
    ``ValueError`` when there is no part, or the parts disagree or hold an uncovered release.

    CPU path runs (``cpu_paths``) merge the same way, by key: a part's run replaces the base's,
    and the base's are kept only when it was made for the same pin."""
    if not parts:
        raise ValueError("no part to merge")
    pinned, covered = parts[0]["pinned"], list(parts[0]["covered"])
    for part in parts:
        if part["pinned"] != pinned or list(part["covered"]) != covered:
            raise ValueError(f"parts disagree: pin {part['pinned']} covering {part['covered']} "
                             f"against pin {pinned} covering {covered}")
        extra = sorted(set(part["releases"]) - set(covered))
        if extra:
            raise ValueError(f"a part holds releases it does not cover: {', '.join(extra)}")
    same_pin = base.get("pinned") == pinned
    runs = dict(base.get("releases", {})) if same_pin else {}
    paths = dict(base.get("cpu_paths", {})) if same_pin else {}
    for part in parts:
        runs.update(part["releases"])
        paths.update(part.get("cpu_paths", {}))
    return part_record(pinned, covered, {r: runs[r] for r in covered if r in runs}, paths)


def read_parts(paths: list[Path]) -> list[dict]:
    """The part records in ``paths`` (JSON files written with ``--part``)."""
    return [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", action="append", metavar="X.Y.Z",
                        help="run only this covered release (repeatable); the record keeps the "
                             "other releases' entries")
    parser.add_argument("--list", action="store_true",
                        help="print the covered releases and newer ones on the registry, run "
                             "nothing")
    parser.add_argument("--json", action="store_true",
                        help="with --list: print only the covered releases, as a JSON list (what "
                             "the GitHub workflow's matrix reads)")
    parser.add_argument("--reinstall", action="store_true",
                        help="rebuild the environments instead of reusing them")
    parser.add_argument("--part", type=Path, metavar="FILE",
                        help="write the releases run to FILE as a part record, leaving the "
                             "committed record as it is (one CI job per release)")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="PART",
                        help="merge part records into the record and run nothing")
    parser.add_argument("--cpu-paths", nargs="*", metavar="PATH",
                        help="run the pinned release under these CPU kernel paths (none named: "
                             "every path this machine can reach) instead of the releases")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a test failed in a run (an audit)")
    parser.add_argument("--record", type=Path, default=RECORD, metavar="FILE",
                        help=f"the record to read and write (default: "
                             f"{RECORD.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)  # progress shows as it happens, in a log too

    if args.merge:
        record = merge_records(load_record(args.record), read_parts(args.merge))
        write_record(record, args.record)
        print(f"merged {len(args.merge)} part(s) into {args.record}: "
              f"{', '.join(record['releases'])}")
        return 0
    pinned = pinned_release()
    record = load_record(args.record)
    asked = True
    try:
        available = registry_releases()
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as error:
        # Offline: keep the releases the record covers when it was made for the same pin.
        available = record.get("covered", []) if record.get("pinned") == pinned else [pinned]
        asked = False
        print(f"the registry could not be asked ({str(error).splitlines()[0]}); using "
              f"{', '.join(available)}", file=sys.stderr)
    covered = covered_releases(pinned, available)
    newer = newer_than(pinned, available) if asked else None
    if args.list and args.json:
        print(json.dumps(covered))
        return 0
    print(f"covered releases: {', '.join(covered)} (pinned: {pinned})")
    if args.list:
        _tell_newer(pinned, newer)
        return 0
    runs: dict[str, dict] = {}
    paths: dict[str, dict] = {}
    status = 0
    if args.cpu_paths is not None:
        reachable = reachable_paths(cpu_flags(), platform.machine())
        chosen = args.cpu_paths or reachable
        unknown = [p for p in chosen if p not in reachable]
        if unknown:
            parser.error(f"not a CPU path this machine can reach: {', '.join(unknown)} "
                         f"(reachable: {', '.join(reachable)})")
        print(f"CPU paths on this machine: {', '.join(reachable)}")
        try:
            python = pinned_python(pinned, reinstall=args.reinstall)
        except subprocess.CalledProcessError as error:
            print(f"[{pinned}] FAILED: {error}", file=sys.stderr)
            return 1
        for name in chosen:
            try:
                paths[path_key(name)] = run_cpu_path(name, python, pinned)
            except (subprocess.CalledProcessError, RuntimeError) as error:
                print(f"[{path_key(name)}] FAILED: {error}", file=sys.stderr)
                status = 1
    else:
        chosen = args.release or covered
        unknown = [r for r in chosen if r not in covered]
        if unknown:
            parser.error(f"not a covered release: {', '.join(unknown)} "
                         f"(covered: {', '.join(covered)})")
        for release in chosen:
            try:
                python = ensure_venv(release, reinstall=args.reinstall)
                runs[release] = run_release(release, python)
            except (subprocess.CalledProcessError, RuntimeError) as error:
                print(f"[{release}] FAILED: {error}", file=sys.stderr)
                status = 1
    if args.strict and any(e["summary"]["failed"] for e in [*runs.values(), *paths.values()]):
        status = 1
    part = part_record(pinned, covered, runs, paths)
    if args.part:
        write_record(part, args.part)
        print(f"wrote the part {args.part}: {', '.join([*runs, *paths]) or 'no run'}")
        return status if runs or paths else 1
    record = merge_records(record, [part])
    write_record(record, args.record)
    print(f"wrote {args.record}")
    missing = [r for r in covered if r not in record["releases"]]
    if missing and args.cpu_paths is None:
        print(f"not in the record yet: {', '.join(missing)}", file=sys.stderr)
        status = 1
    _tell_newer(pinned, newer)
    return status


def _tell_newer(pinned: str, newer: list[str] | None) -> None:
    """Print the releases on the registry newer than the pin (``None``: the registry was not
    reached)."""
    if newer is None:
        print("could not ask the registry for torch releases newer than the pin")
    elif newer:
        print(f"NEWER torch on the registry than the pin {pinned}: {', '.join(newer)}. To move "
              "to it: change the pin in requirements.txt, install it, then run "
              f"python -m scripts refresh-outputs and {COMMAND}.")
    else:
        print(f"no torch release on the registry is newer than the pin {pinned}")


if __name__ == "__main__":
    sys.exit(main())
