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
    python -m scripts torch-matrix --cuda --part gpu.json          # the CUDA checks, on a GPU

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
each run under ``cpu_paths``, keyed ``<arch>/<machine>/<path>`` (``x86_64/amd-epyc-c8b60e/avx2``:
the machine is its CPU model and a digest of its kernel flags, :func:`machine_id`), with the
CPU's model, its flags that decide kernels, and the ATen capability that
the run reported, so the runs of two machines stand side by side. Pages say on how many paths
and machines their checks passed.

The CUDA checks (``--cuda``): the page blocks marked ``<!--pytest.mark.cuda-->`` and the tests
marked ``@pytest.mark.cuda`` (``tests/cuda_marker.py``), and the benchmark program's CUDA runs
(:data:`BENCHMARK_RUNS`), run on a GPU machine with the Python that runs this command and the
PyTorch it has (nothing is installed; a release other than the pin is fine, and recorded). The
record keeps each such run under ``gpus``, keyed ``<gpu>/<torch>``
(``nvidia-h200/2.11.0+cu130``), with the GPU's name, its driver, the CUDA version torch was built
with and the torch release. Where torch sees no CUDA device the command says so and exits with
status 1, writing nothing. Packages the selected checks import that the GPU machine lacks
(:data:`CUDA_RUN_NEEDS`) come as wheels in a folder (``--wheelhouse``, filled here by
``--download-wheels``) and are unpacked for the run, not installed.

The GitHub workflow ``.github/workflows/torch-matrix.yml`` runs the same code on CI's runners:
one job per covered release (``--release X --part FILE``), then one job that merges the parts
into the record (``--merge``) and commits it. A local run merges the same way
(:func:`merge_records`), so the record has one producer.

Exit status: 0 when the record (or the part) was written (failing tests on an older release are
data, not an error; with ``--strict``, 1 when one failed), 1 when a release could not be
installed, pytest crashed, or (``--cuda``) there is no GPU or a package is missing, 2 on bad
arguments.
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
import zipfile
from pathlib import Path

from packaging.version import Version

from scripts import ROOT
from scripts.hooks import matrix_notes
from scripts.hooks.matrix_notes import file_fingerprint

#: The committed record of the last matrix run.
RECORD = ROOT / matrix_notes.RECORD
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
PYTEST_OPTIONS = [
    "-p",
    "no:cacheprovider",
    "-p",
    "tests.torch_matrix_plugin",
    "--nbmake",
    "-q",
    "-n",
    "2",
]


#: The variable that turns oneDNN off in every Python process of a run (see :func:`run_selection`).
NO_ONEDNN = "TORCH_MATRIX_NO_ONEDNN"
#: CPU kernel paths: name -> (what runs, the environment that forces it). Sources: PyTorch's
#: ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``, ``avx512``; ATen's native/DispatchStub.cpp),
#: MKL's ``MKL_ENABLE_INSTRUCTIONS``, oneDNN's ``ONEDNN_MAX_CPU_ISA`` and ``OMP_NUM_THREADS``.
CPU_PATHS: dict[str, tuple[str, dict[str, str]]] = {
    "native": ("the CPU's own choice of kernels", {}),
    "avx2": (
        "AVX2 kernels in ATen, MKL and oneDNN",
        {
            "ATEN_CPU_CAPABILITY": "avx2",
            "MKL_ENABLE_INSTRUCTIONS": "AVX2",
            "ONEDNN_MAX_CPU_ISA": "AVX2",
        },
    ),
    "avx512": ("ATen's AVX-512 kernels", {"ATEN_CPU_CAPABILITY": "avx512"}),
    "onednn-vnni": (
        "oneDNN below its bfloat16 instructions",
        {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_VNNI"},
    ),
    "aten-default": (
        "ATen's kernels without vector extensions",
        {"ATEN_CPU_CAPABILITY": "default"},
    ),
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
KERNEL_FLAGS = (
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "avx_ne_convert",
    "amx_tile",
    "amx_bf16",
    "amx_fp16",
    "asimd",
    "asimddp",
    "bf16",
    "i8mm",
    "sve",
    "sve2",
    "sme",
)
#: ``sitecustomize`` for the ``no-onednn`` path: every Python process of the run (pytest and its
#: workers, snippet subprocesses, notebook kernels) starts with oneDNN switched off.
_NO_ONEDNN_SITE = (
    "import os\n"
    f"if os.environ.get({NO_ONEDNN!r}) == '1':\n"
    "    import torch\n"
    "    torch.backends.mkldnn.enabled = False\n"
)


#: The benchmark program whose CUDA runs the GPU kind runs and records.
BENCHMARK = ROOT / "snippets" / "benchmarks" / "lookup_vs_onehot.py"
#: Its CUDA runs: name -> the options after the program. The sweep of the benchmarks page, and the
#: model-scale sweep where the program offers it (an option ``--models`` in its source).
BENCHMARK_RUNS = {"sweep": ["--device", "cuda"], "models": ["--models", "--device", "cuda"]}
#: How long the benchmark's CUDA runs may take together (seconds): a run still going then is
#: stopped and recorded as failed, and a run not started yet is not started.
BENCHMARK_TIMEOUT = 420
#: A page block's CUDA marker (the HTML comment on the line above its fence, as pytest-codeblocks
#: reads it) and a test's (a decorator, or a module's ``pytestmark``).
CUDA_MARKS = {
    ".md": re.compile(r"^[ \t]*<!--[-\s]*pytest\.mark\.cuda\b", re.MULTILINE),
    ".py": re.compile(r"\bpytest\.mark\.cuda\b"),
}
#: pytest options of the CUDA run: the project's ``addopts`` replaced (they start pytest-xdist's
#: workers, which a GPU machine need not have), the ``cuda`` marker's plugin and pytest-codeblocks
#: loaded, only checks marked ``cuda`` selected, each outcome recorded.
CUDA_PYTEST_OPTIONS = [
    "-o",
    "addopts=",
    "-p",
    "tests.cuda_marker",
    "--codeblocks",
    "--strict-markers",
    "-p",
    "no:cacheprovider",
    "-p",
    "tests.torch_matrix_plugin",
    "-m",
    "cuda",
    "-q",
    "-rs",
]
#: What the CUDA run imports beyond torch, pytest and Hypothesis: distribution -> the module it
#: provides. pytest-codeblocks collects the pages' blocks; ``tests/conftest.py`` (loaded when a
#: test file is selected) imports matplotlib, filelock, Markdown and PyYAML; pytest-timeout
#: applies the project's 120 s limit per check; the benchmark imports NumPy and SciPy.
CUDA_RUN_NEEDS = {
    "pytest-codeblocks": "pytest_codeblocks",
    "pytest-timeout": "pytest_timeout",
    "filelock": "filelock",
    "matplotlib": "matplotlib",
    "Markdown": "markdown",
    "PyYAML": "yaml",
    "numpy": "numpy",
    "scipy": "scipy",
}
#: What the GPU kind asks torch, in the Python that runs the checks (one JSON line).
_GPU_PROBE = (
    "import json, platform, torch\n"
    "info = {'torch': torch.__version__, 'python': platform.python_version(),\n"
    "        'available': torch.cuda.is_available()}\n"
    "if info['available']:\n"
    "    p = torch.cuda.get_device_properties(0)\n"
    "    info.update(name=torch.cuda.get_device_name(0), cuda=torch.version.cuda,\n"
    "                count=torch.cuda.device_count(), capability=f'{p.major}.{p.minor}',\n"
    "                memory_gib=round(p.total_memory / 2**30, 1))\n"
    "print(json.dumps(info))\n"
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
            env.get("ATEN_CPU_CAPABILITY", "default") != "default"
        )
        if x86_only and not (x86 and PATH_NEEDS.get(name, set()) <= flags):
            continue
        out.append(name)
    return out


def load_record(path: Path = RECORD) -> dict:
    """The committed record (``{"pinned": ..., "releases": {release: entry}}``), or an empty one
    when the file does not exist."""
    if not path.exists():
        return {"pinned": None, "releases": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def machine_id(machine: dict) -> str:
    """A CPU machine's short name in the record: its CPU model in lower case, without the count
    of logical CPUs, ``(R)`` and ``(TM)``, then 6 hex digits of SHA-256 over its sorted kernel
    flags, e.g. ``amd-epyc-5d1c0e``. ``machine`` is a run's ``machine`` entry (``cpu``:
    ``"AMD EPYC, 2 logical CPUs"``, ``flags``: a list, absent in runs recorded before flags
    were)."""
    model = re.sub(r",\s*\d+ logical CPUs?$", "", machine.get("cpu", "unknown cpu"))
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"\((?:r|tm)\)", "", model.lower())).strip("-")
    flags = ",".join(sorted(machine.get("flags", [])))
    return f"{slug or 'cpu'}-{hashlib.sha256(flags.encode()).hexdigest()[:6]}"


def cpu_path_key(arch: str, machine: dict, path: str) -> str:
    """The record's key of a run of the CPU path ``path`` (``"avx2"``) on the machine
    ``machine`` (see :func:`machine_id`) of architecture ``arch`` (``platform.machine()``):
    ``x86_64/amd-epyc-5d1c0e/avx2``. Runs of two machines have two keys, side by side."""
    return f"{arch.lower()}/{machine_id(machine)}/{path}"


def migrate(record: dict) -> dict:
    """``record`` (or a part) with its CPU path runs keyed by machine (:func:`cpu_path_key`):
    a run keyed ``<arch>/<path>``, the form before machines were told apart, gets its machine
    from its own ``machine`` entry. Other keys and entries are left as they are; a new dict is
    returned (``record`` is not changed)."""
    paths = {}
    for key, run in record.get("cpu_paths", {}).items():
        if key.count("/") == 1:
            arch, path = key.split("/")
            key = cpu_path_key(arch, run.get("machine", {}), run.get("path", path))
        paths[key] = run
    return (
        {**record, "cpu_paths": dict(sorted(paths.items()))}
        if "cpu_paths" in record
        else {**record}
    )


def gpu_key(gpu: dict, torch_version: str) -> str:
    """The record's key of a run of the CUDA checks on the GPU ``gpu`` (its ``name``, e.g.
    ``"NVIDIA H200"``) with ``torch_version`` (``"2.11.0+cu130"``): ``nvidia-h200/2.11.0+cu130``.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.get("name", "gpu").lower()).strip("-")
    return f"{slug or 'gpu'}/{torch_version}"


def path_key(name: str, arch: str | None = None, machine_: dict | None = None) -> str:
    """The record's key of a run of the CPU path ``name`` on this machine (or on ``machine_``,
    a run's ``machine`` entry, of architecture ``arch``): ``x86_64/amd-epyc-c8b60e/avx2``."""
    return cpu_path_key(arch or platform.machine(), machine_ or machine(), name)


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
        capture_output=True,
        text=True,
        timeout=300,
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
    log(
        f"[{release}] pip install -r requirements.txt with torch=={release} "
        f"(log: {log_file}; the first time, several minutes and up to ~6 GB)"
    )
    started = time.monotonic()
    with log_file.open("w") as out:
        for args in (["--upgrade", "pip"], ["-r", str(pending)]):
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", *args],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=True,
            )
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


def _run_pytest(
    label: str, python: Path, args: list[str], env: dict[str, str], log=print, root: Path = ROOT
) -> tuple[dict[str, dict], float]:
    """Run pytest with ``python`` and ``args`` in ``root`` (the repository's), the matrix's plugin
    writing each test's outcome (:mod:`tests.torch_matrix_plugin`), and return the outcomes
    (``{test id: {"outcome": ..., ...}}``) and the seconds it took. Raises ``RuntimeError`` when
    pytest stops without results (exit status other than 0 or 1: interrupted, internal error,
    usage error, an import error while collecting, nothing collected)."""
    with tempfile.TemporaryDirectory(prefix="torch-matrix-") as tmp:
        out = Path(tmp) / "outcomes.json"
        started = time.monotonic()
        proc = subprocess.run(
            [str(python), "-m", "pytest", *args],
            cwd=root,
            env={**env, "TORCH_MATRIX_OUT": str(out)},
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - started
        if proc.returncode not in (0, 1) or not out.exists():
            raise RuntimeError(
                f"{label} pytest exited with {proc.returncode}:\n"
                f"{(proc.stdout + proc.stderr)[-3000:]}"
            )
        return json.loads(out.read_text())["outcomes"], seconds


def _summary(label: str, outcomes: dict[str, dict], seconds: float, log=print) -> dict[str, int]:
    """Count ``outcomes`` by kind, print the counts and each failure under ``label``."""
    summary = {
        k: sum(t["outcome"] == k for t in outcomes.values())
        for k in ("passed", "failed", "skipped")
    }
    log(
        f"{label} {summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['skipped']} skipped in {seconds:.0f} s"
    )
    for test_id, entry in sorted(outcomes.items()):
        if entry["outcome"] == "failed":
            log(f"    FAILED {test_id}: {entry.get('message', '')}")
    return summary


def run_selection(
    label: str, release: str, python: Path, settings: dict[str, str], log=print
) -> dict:
    """Run :func:`selection` with ``python`` (an environment holding ``release``), the
    environment variables ``settings`` added, and return a record entry: the release, the
    ``torch.__version__`` that ran, the ATen CPU capability it reported, the date, the machine
    and every test's outcome. Raises ``RuntimeError`` when pytest stops without results (exit
    status other than 0 or 1: interrupted, internal error, usage error, nothing collected)."""
    with tempfile.TemporaryDirectory(prefix="torch-matrix-") as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(_NO_ONEDNN_SITE, encoding="utf-8")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
            "HF_HUB_OFFLINE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            **settings,
        }
        env.pop("VIRTUAL_ENV", None)
        version = subprocess.run(
            [
                str(python),
                "-c",
                "import torch, platform; print(torch.__version__); "
                "print(platform.python_version()); print(torch.backends.cpu.get_cpu_capability()); "
                "print(torch.get_num_threads()); print(torch.backends.mkldnn.enabled)",
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=ROOT,
        ).stdout.split()
        log(
            f"{label} pytest on torch {version[0]} (ATen capability {version[2]}, "
            f"{version[3]} threads, oneDNN {'on' if version[4] == 'True' else 'off'}) ..."
        )
        outcomes, seconds = _run_pytest(
            label, python, [*PYTEST_OPTIONS, *selection()], env, log=log
        )
    summary = _summary(label, outcomes, seconds, log=log)
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


def cuda_selection(root: Path = ROOT) -> list[str]:
    """The files of :func:`selection` under ``root`` that hold a check marked ``cuda``: a page
    (or the README) with ``<!--pytest.mark.cuda-->`` above a fence, a test file with
    ``@pytest.mark.cuda`` (:data:`CUDA_MARKS`), as paths relative to ``root``, in
    :func:`selection`'s order. pytest's ``-m cuda`` then picks the marked checks in them."""
    found = []
    for arg in selection(root):
        path = root / arg
        files = sorted(path.rglob("*.md")) if path.is_dir() else [path]
        for file in files:
            mark = CUDA_MARKS.get(file.suffix)
            if mark and file.is_file() and mark.search(file.read_text(encoding="utf-8")):
                found.append(file.relative_to(root).as_posix())
    return found


def gpu_driver() -> str:
    """The NVIDIA driver's version on this machine (``nvidia-smi``, else
    ``/proc/driver/nvidia/version``), or ``"unknown"``."""
    try:
        proc = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.split()[0]
    except (OSError, subprocess.TimeoutExpired):
        pass
    version = Path("/proc/driver/nvidia/version")
    if version.exists():
        found = re.search(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d[\d.]*)", version.read_text())
        if found:
            return found.group(1)
    return "unknown"


def gpu_info(python: Path) -> dict | None:
    """The GPU that ``python``'s torch sees (its first CUDA device): ``name``, ``driver``,
    ``cuda`` (the CUDA version torch was built with, ``torch.version.cuda``), ``capability``,
    ``count`` (devices), ``memory_gib``, and ``torch`` and ``python`` (versions). ``None`` when
    torch sees no CUDA device. Raises ``subprocess.CalledProcessError`` when torch cannot be
    imported."""
    info = json.loads(
        subprocess.run(
            [str(python), "-c", _GPU_PROBE], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
    )
    if not info.pop("available"):
        return None
    return {**info, "driver": gpu_driver()}


def download_wheels(
    folder: Path,
    names: list[str] = (),
    python_version: str = "3.12",
    platform_tag: str = "manylinux_2_28_x86_64",
) -> list[Path]:
    """Fill ``folder`` with wheels for a GPU machine's Python ``python_version`` on
    ``platform_tag``, at the versions installed here: of ``names`` alone (a machine that lacks
    only those; the GPU machines lent to this project lack only ``pytest-codeblocks``), or of
    all :data:`CUDA_RUN_NEEDS` and what they need (a machine with only torch, pytest and
    Hypothesis; about 76 MiB). ``pip download``, so this needs the package registry. Returns the
    wheels in ``folder``. Raises ``subprocess.CalledProcessError`` when pip fails."""
    from importlib.metadata import version

    folder.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={version(name)}" for name in (names or CUDA_RUN_NEEDS)]
    tags = [platform_tag, "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--only-binary=:all:",
            *(["--no-deps"] if names else []),
            "--python-version",
            python_version,
            "--implementation",
            "cp",
            *(a for tag in tags for a in ("--platform", tag)),
            "-d",
            str(folder),
            *pins,
        ],
        check=True,
    )
    return sorted(folder.glob("*.whl"))


def unpack_wheels(folder: Path, into: Path, log=print) -> list[str]:
    """Unpack into ``into`` (a folder put on ``PYTHONPATH``) each wheel of ``folder`` whose
    distribution this Python lacks, so a run can import it without installing anything; a wheel's
    ``purelib`` and ``platlib`` data go beside its packages. Returns the distributions unpacked.
    """
    from importlib.metadata import PackageNotFoundError, distribution

    done = []
    for wheel in sorted(folder.glob("*.whl")):
        name = wheel.name.split("-")[0]
        try:
            distribution(name)
            continue
        except PackageNotFoundError:
            pass
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(into)
        done.append(name)
    for data in into.glob("*.data"):
        for kind in ("purelib", "platlib"):
            for item in (data / kind).glob("*"):
                if item.is_dir():
                    shutil.copytree(item, into / item.name, dirs_exist_ok=True)
                else:
                    shutil.copy2(item, into / item.name)
    if done:
        log(f"unpacked for this run, from {folder}: {', '.join(done)}")
    return done


def missing_modules(files: list[str], extra_path: list[str] = ()) -> list[str]:
    """The distributions of :data:`CUDA_RUN_NEEDS` that pytest needs to collect ``files`` (the
    CUDA selection) and that this Python, with ``extra_path`` added, cannot import."""
    from importlib.machinery import PathFinder

    needs = []
    if any(f.endswith(".md") for f in files):
        needs += ["pytest-codeblocks"]
    if any(f.startswith("tests/") for f in files):
        needs += ["matplotlib", "filelock", "Markdown", "PyYAML"]
    search = [*extra_path, *sys.path]  # looked up there, without changing sys.path
    return [n for n in needs if PathFinder.find_spec(CUDA_RUN_NEEDS[n], search) is None]


def benchmark_runs(program: Path = BENCHMARK) -> dict[str, list[str]]:
    """The :data:`BENCHMARK_RUNS` that ``program`` offers: the model-scale sweep only where its
    source has the option ``--models``; none when there is no program."""
    if not program.exists():
        return {}
    offers_models = '"--models"' in program.read_text(encoding="utf-8")
    return {
        name: options
        for name, options in BENCHMARK_RUNS.items()
        if name != "models" or offers_models
    }


def run_benchmark(
    python: Path, options: list[str], output: Path, env: dict[str, str], timeout: float
) -> dict:
    """Run :data:`BENCHMARK` with ``options`` (``--device cuda``; its data set written to
    ``output``) and return what the record keeps of it: the command, ``outcome`` (``passed``
    when it exited 0 and wrote ``output``, else ``failed``), the error's last line, the seconds
    and the program's fingerprint."""
    command = [
        str(python),
        str(BENCHMARK),
        *options,
        "--output",
        str(output),
        "--note",
        "torch matrix, CUDA run",
    ]
    started = time.monotonic()
    try:
        proc = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
        )
        ok, tail = proc.returncode == 0 and output.exists(), proc.stderr.strip().splitlines()
        message = "" if ok else (tail[-1] if tail else f"exit status {proc.returncode}")
    except subprocess.TimeoutExpired:
        ok, message = False, f"stopped after {timeout:.0f} s"
    entry = {
        "command": f"python {BENCHMARK.relative_to(ROOT).as_posix()} {' '.join(options)}",
        "outcome": "passed" if ok else "failed",
        "seconds": round(time.monotonic() - started, 1),
        "fingerprint": file_fingerprint(BENCHMARK),
        "output": output.name,
    }
    return {**entry, "message": message[:240]} if message else entry


def run_cuda(
    python: Path,
    gpu: dict,
    benchmark_output: Path | None = None,
    wheel_site: Path | None = None,
    log=print,
    root: Path = ROOT,
    benchmark_seconds: float = BENCHMARK_TIMEOUT,
) -> dict:
    """Run the CUDA checks (:func:`cuda_selection`, pytest ``-m cuda``) with ``python`` on the
    GPU ``gpu`` (:func:`gpu_info`), then, unless ``benchmark_output`` is ``None``, the benchmark's
    CUDA runs (:func:`benchmark_runs`, :func:`run_benchmark`; the data set of a run named ``X``
    written beside ``benchmark_output``, ``<its stem>-X.json``), and return the record's entry:
    the torch that ran, the GPU (name, driver, CUDA, capability, memory), the date, the machine,
    the files selected, every check's outcome and each benchmark run's. ``wheel_site``: a folder
    of unpacked wheels put first on ``PYTHONPATH``; ``root``: the project whose checks run (the
    repository); ``benchmark_seconds``: the benchmark runs' time together. Raises
    ``RuntimeError`` when pytest stops without results."""
    label = f"[{gpu_key(gpu, gpu['torch'])}]"
    files = cuda_selection(root)
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join(
            dict.fromkeys([*([str(wheel_site)] if wheel_site else []), str(root), str(ROOT)])
        ),
    }
    env.pop("VIRTUAL_ENV", None)
    log(
        f"{label} {gpu['name']}, driver {gpu['driver']}, CUDA {gpu['cuda']}, torch "
        f"{gpu['torch']}: the checks marked cuda in {len(files)} file(s)"
    )
    outcomes, seconds = ({}, 0.0)
    if files:
        outcomes, seconds = _run_pytest(
            label, python, [*CUDA_PYTEST_OPTIONS, *files], env, log=log, root=root
        )
    summary = _summary(label, outcomes, seconds, log=log)
    entry = {
        "kind": "cuda",
        "release": Version(gpu["torch"]).public,
        "torch": gpu["torch"],
        "gpu": {k: gpu[k] for k in ("name", "driver", "cuda", "capability", "count", "memory_gib")},
        "date": dt.date.today().isoformat(),
        "machine": {**machine(), "python": gpu["python"]},
        "selected": files,
        "summary": summary,
        "tests": dict(sorted(outcomes.items())),
    }
    runs = benchmark_runs() if benchmark_output is not None else {}
    deadline = time.monotonic() + benchmark_seconds
    for name, options in runs.items():
        left = deadline - time.monotonic()
        if left < 10:
            log(f"{label} benchmark {name}: no time left ({benchmark_seconds:.0f} s in all)")
            break
        log(f"{label} {BENCHMARK.relative_to(ROOT)} {' '.join(options)} ...")
        output = benchmark_output.with_name(f"{benchmark_output.stem}-{name}.json")
        result = run_benchmark(python, options, output, env, left)
        entry.setdefault("benchmark", {})[name] = result
        log(
            f"{label} benchmark {name} {result['outcome']} in {result['seconds']:.0f} s "
            f"{result.get('message', '')}"
        )
    return entry


def cuda_main(args, pinned: str, covered: list[str]) -> int:
    """The ``--cuda`` run (see the module docstring): 1 without a GPU or without the packages
    the selection needs (nothing written), else the status of writing the part or record."""
    python = Path(sys.executable)
    gpu = gpu_info(python)
    if gpu is None:
        print(
            "no CUDA GPU: torch.cuda.is_available() is False with this Python's torch; "
            "nothing run, nothing written",
            file=sys.stderr,
        )
        return 1
    with tempfile.TemporaryDirectory(prefix="torch-matrix-wheels-") as tmp:
        site = None
        if args.wheelhouse:
            site = Path(tmp)
            unpack_wheels(args.wheelhouse, site)
        missing = missing_modules(cuda_selection(), [str(site)] if site else [])
        if missing:
            print(
                f"the CUDA checks need {', '.join(missing)}, which this Python lacks: bring "
                f"their wheels (python -m scripts torch-matrix --download-wheels DIR, on a "
                f"machine with the registry) and pass --wheelhouse DIR; nothing written",
                file=sys.stderr,
            )
            return 1
        target = args.part or args.record
        bench = (
            None
            if args.no_benchmark
            else (
                target.with_name(f"{target.stem}-benchmark.json")
                if args.part
                else CACHE / "benchmark.json"
            )
        )
        if bench is not None:
            bench.parent.mkdir(parents=True, exist_ok=True)
        try:
            entry = run_cuda(python, gpu, bench, site, benchmark_seconds=args.benchmark_seconds)
        except RuntimeError as error:
            print(f"[cuda] FAILED: {error}", file=sys.stderr)
            return 1
    key = gpu_key(gpu, gpu["torch"])
    part = part_record(pinned, covered, {}, {}, {key: entry})
    if args.part:
        write_record(part, args.part)
        print(f"wrote the part {args.part}: {key}")
    else:
        write_record(merge_records(load_record(args.record), [part]), args.record)
        print(f"wrote {args.record}: {key}")
    return 1 if args.strict and entry["summary"]["failed"] else 0


def write_record(record: dict, path: Path = RECORD) -> None:
    """Write the record as sorted, indented JSON (stable diffs), ending with a newline."""
    path.write_text(
        json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def selection_digest() -> str:
    """12 hex digits identifying :data:`SELECTION` and :data:`DESELECT` (recorded, so a changed
    selection is visible in the record's diff)."""
    return hashlib.sha256(json.dumps([SELECTION, DESELECT]).encode()).hexdigest()[:12]


def part_record(
    pinned: str,
    covered: list[str],
    entries: dict[str, dict],
    paths: dict[str, dict] | None = None,
    gpus: dict[str, dict] | None = None,
) -> dict:
    """A record holding the runs ``entries`` (``{release: entry}``, as :func:`run_release` returns
    them) of a matrix that covers ``covered`` for the pin ``pinned``, the runs of the pin on
    CPU paths ``paths`` (``{"x86_64/amd-epyc-c8b60e/avx2": entry}``, as :func:`run_cpu_path`
    returns them) and the runs of the CUDA checks ``gpus`` (``{"nvidia-h200/2.11.0+cu130":
    entry}``, as :func:`run_cuda` returns them): what one CI job uploads, and what a local run
    merges into the committed record."""
    return {
        "command": COMMAND,
        "pinned": pinned,
        "covered": list(covered),
        "selection": selection_digest(),
        "releases": dict(entries),
        "cpu_paths": dict(sorted((paths or {}).items())),
        "gpus": dict(sorted((gpus or {}).items())),
    }


def merge_records(base: dict, parts: list[dict]) -> dict:
    """The record after ``parts`` (records of one or more releases each, :func:`part_record`) are
    merged into ``base`` (the committed record; ``{}`` for none).

    The parts must agree with each other on the pin and the covered releases, and hold only
    covered releases; a release in several parts takes the last one. The result covers the parts'
    releases, with each covered release's run from the parts, else from ``base`` when ``base``
    was made for the same pin; runs of releases no longer covered are dropped. Raises
    ``ValueError`` when there is no part, or the parts disagree or hold an uncovered release.

    CPU path runs (``cpu_paths``) merge the same way, by key (machine and path, keys of the
    older form ``x86_64/avx2`` are first given their machine, :func:`migrate`): a part's run
    replaces the base's run of the same path on the same machine, the
    runs of other machines stay beside it, and the base's are kept only when it was made for the
    same pin. GPU runs (``gpus``) merge by key too, whatever the pin: each ran the torch of its
    GPU machine, and the pages count a run's checks only where their fingerprints still match;
    a part holding only GPU runs leaves the pin, the covered releases and their runs as the other
    parts, else the base, have them."""
    if not parts:
        raise ValueError("no part to merge")
    # A part of GPU runs only says nothing of releases: the others' pin, else the base's, stands.
    cpu_parts = [p for p in parts if not p.get("gpus") or p.get("releases") or p.get("cpu_paths")]
    ref = cpu_parts[0] if cpu_parts else base if base.get("pinned") else parts[0]
    pinned, covered = ref["pinned"], list(ref.get("covered", [ref["pinned"]]))
    for part in cpu_parts:
        if part["pinned"] != pinned or list(part["covered"]) != covered:
            raise ValueError(
                f"parts disagree: pin {part['pinned']} covering {part['covered']} "
                f"against pin {pinned} covering {covered}"
            )
        extra = sorted(set(part["releases"]) - set(covered))
        if extra:
            raise ValueError(f"a part holds releases it does not cover: {', '.join(extra)}")
    base, parts = migrate(base), [migrate(part) for part in parts]
    same_pin = base.get("pinned") == pinned
    runs = dict(base.get("releases", {})) if same_pin else {}
    paths = dict(base.get("cpu_paths", {})) if same_pin else {}
    gpus = dict(base.get("gpus", {}))
    for part in parts:
        runs.update(part["releases"])
        paths.update(part.get("cpu_paths", {}))
        gpus.update(part.get("gpus", {}))
    return part_record(pinned, covered, {r: runs[r] for r in covered if r in runs}, paths, gpus)


def read_parts(paths: list[Path]) -> list[dict]:
    """The part records in ``paths`` (JSON files written with ``--part``)."""
    return [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--release",
        action="append",
        metavar="X.Y.Z",
        help="run only this covered release (repeatable); the record keeps the "
        "other releases' entries",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="print the covered releases and newer ones on the registry, run nothing",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --list: print only the covered releases, as a JSON list (what "
        "the GitHub workflow's matrix reads)",
    )
    parser.add_argument(
        "--reinstall", action="store_true", help="rebuild the environments instead of reusing them"
    )
    parser.add_argument(
        "--part",
        type=Path,
        metavar="FILE",
        help="write the releases run to FILE as a part record, leaving the "
        "committed record as it is (one CI job per release)",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        metavar="PART",
        help="merge part records into the record and run nothing",
    )
    parser.add_argument(
        "--cpu-paths",
        nargs="*",
        metavar="PATH",
        help="run the pinned release under these CPU kernel paths (none named: "
        "every path this machine can reach) instead of the releases",
    )
    parser.add_argument(
        "--cuda",
        action="store_true",
        help="run the checks marked cuda (and the benchmark's CUDA runs) with this "
        "Python's torch on this machine's GPU, instead of the releases",
    )
    parser.add_argument(
        "--wheelhouse",
        type=Path,
        metavar="DIR",
        help="with --cuda: wheels of packages this Python lacks, unpacked for "
        "the run (see --download-wheels)",
    )
    parser.add_argument(
        "--benchmark-seconds",
        type=float,
        default=BENCHMARK_TIMEOUT,
        metavar="S",
        help=f"with --cuda: the benchmark's runs' time together (default {BENCHMARK_TIMEOUT})",
    )
    parser.add_argument(
        "--no-benchmark",
        action="store_true",
        help="with --cuda: leave out the benchmark's CUDA runs",
    )
    parser.add_argument(
        "--download-wheels",
        nargs="+",
        metavar=("DIR", "NAME"),
        help="download into DIR the wheels that a GPU machine with Python 3.12 "
        "needs for --cuda (only those of the NAMEs given, else all of them "
        "and what they need), and run nothing",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when a test failed in a run (an audit)",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=RECORD,
        metavar="FILE",
        help=f"the record to read and write (default: {RECORD.relative_to(ROOT)})",
    )
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)  # progress shows as it happens, in a log too

    if args.download_wheels:
        folder, names = Path(args.download_wheels[0]), args.download_wheels[1:]
        unknown = [n for n in names if n not in CUDA_RUN_NEEDS]
        if unknown:
            parser.error(
                f"not a package the CUDA run needs: {', '.join(unknown)} "
                f"(it needs {', '.join(CUDA_RUN_NEEDS)})"
            )
        wheels = download_wheels(folder, names)
        print(
            f"{len(wheels)} wheels in {folder} "
            f"({sum(w.stat().st_size for w in wheels) / 2**20:.1f} MiB)"
        )
        return 0
    if args.merge:
        record = merge_records(load_record(args.record), read_parts(args.merge))
        write_record(record, args.record)
        print(
            f"merged {len(args.merge)} part(s) into {args.record}: {', '.join(record['releases'])}"
        )
        return 0
    pinned = pinned_release()
    record = load_record(args.record)
    if args.cuda:  # a GPU machine may have no registry: the record's covered releases
        covered = record.get("covered") if record.get("pinned") == pinned else None
        return cuda_main(args, pinned, covered or [pinned])
    asked = True
    try:
        available = registry_releases()
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as error:
        # Offline: keep the releases the record covers when it was made for the same pin.
        available = record.get("covered", []) if record.get("pinned") == pinned else [pinned]
        asked = False
        print(
            f"the registry could not be asked ({str(error).splitlines()[0]}); using "
            f"{', '.join(available)}",
            file=sys.stderr,
        )
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
            parser.error(
                f"not a CPU path this machine can reach: {', '.join(unknown)} "
                f"(reachable: {', '.join(reachable)})"
            )
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
            parser.error(
                f"not a covered release: {', '.join(unknown)} (covered: {', '.join(covered)})"
            )
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
        print(
            f"NEWER torch on the registry than the pin {pinned}: {', '.join(newer)}. To move "
            "to it: change the pin in requirements.txt, install it, then run "
            f"python -m scripts refresh-outputs and {COMMAND}."
        )
    else:
        print(f"no torch release on the registry is newer than the pin {pinned}")


if __name__ == "__main__":
    sys.exit(main())
