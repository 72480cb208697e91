"""The execute stage's one cache: a content-addressed store of folders, ``.cache/<kind>/<key>/``.

Three kinds use it, as :mod:`scripts.hooks.execute` makes them: ``figures`` (each figure module's
SVGs), ``executed`` (each notebook's executed copy) and ``articles`` (each article's download);
the notebook pages' restyled HTML (:mod:`scripts.hooks.notebooks`) is kept in ``pages``. Each
kind computes its own key with :func:`key`, the sha256 (hex) of everything its output can depend
on, :func:`environment_fingerprint` always among it; the store does the rest, the same way for
all:

* :func:`get`: the folder of a key, or ``None``; a hit is marked as used (its mtime);
* :func:`put`: a key's files written all at once (a temporary folder renamed into place): a
  concurrent build sees the whole folder or none of it, and the first of two writers wins;
* :func:`prune`: the one policy. A folder that this build did not use is deleted once no build
  has used it for :data:`PRUNE_AFTER_S` seconds (a concurrent build, ``mkdocs serve`` beside
  ``pytest``, may be about to read its own).

``rm -rf .cache`` forgets everything.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

#: An entry no build has used for this long (seconds) is deleted (:func:`prune`).
PRUNE_AFTER_S = 3600


@functools.cache
def environment_fingerprint() -> str:
    """The Python version and every distribution installed in this environment's ``site-packages``
    (``sysconfig``'s purelib and platlib), as ``name==version``, one per line, each once.

    Part of every cache key: a new pin of torch, matplotlib or anything else can change what a cell
    or a figure shows. Read once per process (a ``mkdocs serve`` started before a ``pip install``
    keeps the old value). Only ``site-packages`` is read, not ``sys.path``, which differs between
    processes of the same environment: started in the project's folder, it holds the editable
    install's ``egg-info``; once setuptools is imported, the distributions setuptools vendors."""
    paths = sorted({sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")})
    dists = importlib.metadata.distributions(path=paths)
    return "\n".join(
        [
            sys.version,
            *sorted(
                {f"{d.metadata['Name']}=={d.version}".lower() for d in dists if d.metadata["Name"]}
            ),
        ]
    )


def key(*parts: str | bytes) -> str:
    """sha256 (hex) of :func:`environment_fingerprint` and ``parts``, each followed by a NUL."""
    h = hashlib.sha256()
    for part in (environment_fingerprint(), *parts):
        h.update((part.encode() if isinstance(part, str) else part) + b"\0")
    return h.hexdigest()


def contents(root: Path, paths) -> list[str | bytes]:
    """Parts for :func:`key`: each file of ``paths``, sorted: its path under ``root``, bytes."""
    return [
        part
        for p in sorted(paths)
        if p.is_file() and "__pycache__" not in p.parts
        for part in (p.relative_to(root).as_posix(), p.read_bytes())
    ]


def get(store: Path, name: str) -> Path | None:
    """The entry ``store/name``, marked as used now, or ``None`` when there is none."""
    if (store / name).is_dir():
        os.utime(store / name)
        return store / name
    return None


def put(store: Path, name: str, files: dict[str, bytes]) -> Path:
    """Write ``files`` (path in the entry -> bytes) as entry ``store/name`` all at once (renamed
    into place; a concurrent build's entry, stored first, is kept); return its folder."""
    tmp = store / f".{name}.{os.getpid()}.tmp"
    for rel, content in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(content)
    try:
        os.replace(tmp, store / name)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    os.utime(store / name)
    return store / name


def prune(store: Path, keep: set[str]) -> None:
    """Delete the entries of ``store`` not in ``keep`` and unused for :data:`PRUNE_AFTER_S`
    seconds; hidden names (an entry being written) are left alone."""
    for path in store.iterdir() if store.is_dir() else []:
        if (
            path.name not in keep
            and not path.name.startswith(".")
            and path.is_dir()
            and time.time() - path.stat().st_mtime > PRUNE_AFTER_S
        ):
            shutil.rmtree(path, ignore_errors=True)
