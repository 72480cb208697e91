"""The build's one cache: a content-addressed store of folders, ``.cache/<kind>/<key>/``.

Three kinds use it: ``figures`` (each figure module's SVGs, :mod:`scripts.build.figures`),
``executed`` (each notebook's executed copy) and ``articles`` (each article's download; both
:mod:`scripts.build.execute`). Each computes its own key, the sha256 (hex) of everything its
output can depend on, :func:`environment_fingerprint` always among it; the store does the rest,
the same way for all three:

* :meth:`Store.get`: the folder of a key, or ``None``; a hit is marked as used (its mtime);
* :meth:`Store.put`: a key's files written all at once (a temporary folder renamed into place):
  a concurrent build sees the whole folder or none of it, and the first of two writers wins;
* :meth:`Store.prune`: the one policy. A folder that this build did not use is deleted once no
  build has used it for :data:`PRUNE_AFTER_S` seconds (a concurrent build, ``mkdocs serve``
  beside ``pytest``, may be about to read its own); a folder still being written is left alone.

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

#: Where every kind's store lives, relative to the project.
CACHE = Path(".cache")
#: An unused entry is deleted only when it is older than this (seconds): see :meth:`Store.prune`.
PRUNE_AFTER_S = 3600


@functools.cache
def environment_fingerprint() -> str:
    """The Python version and every distribution installed in this environment's
    ``site-packages`` (``sysconfig``'s purelib and platlib), as ``name==version``, one per line,
    each once.

    Part of every cache key: a new pin of torch, matplotlib or anything else can change what a
    cell or a figure shows. Read once per process (a ``mkdocs serve`` started before a ``pip
    install`` keeps the old value). Only ``site-packages`` is read, not ``sys.path``: the same in
    every process of the environment. (``sys.path`` gave other keys in some: started in the
    project's folder, it holds the editable install's ``embedding_executed.egg-info``; once
    setuptools is imported, it holds the distributions setuptools vendors.)
    """
    paths = sorted({sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")})
    dists = sorted({
        f"{d.metadata['Name']}=={d.version}".lower()
        for d in importlib.metadata.distributions(path=paths)
        if d.metadata["Name"]
    })
    return "\n".join([sys.version, *dists])


def digest(*parts: bytes) -> str:
    """sha256 (hex) of ``parts``, each followed by a NUL byte."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part + b"\0")
    return h.hexdigest()


class Store:
    """The entries of one kind, ``<root>/.cache/<kind>/<key>/`` (or any ``folder`` given)."""

    def __init__(self, root: Path, kind: str, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else root / CACHE / kind

    def path(self, key: str) -> Path:
        """Where the entry ``key`` is (or would be) kept."""
        return self.folder / key

    def get(self, key: str) -> Path | None:
        """The folder of entry ``key``, marked as used now, or ``None`` when there is none."""
        entry = self.folder / key
        if not entry.is_dir():
            return None
        os.utime(entry)
        return entry

    def put(self, key: str, files: dict[str, bytes]) -> Path:
        """Store ``files`` (path inside the entry -> bytes) as entry ``key``, all at once; return
        its folder. When a concurrent build stored the same key first, its entry is kept."""
        entry = self.folder / key
        tmp = self.folder / f".{key}.{os.getpid()}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for rel, content in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_bytes(content)
        try:
            os.replace(tmp, entry)
        except OSError:  # a concurrent build stored it first
            pass
        shutil.rmtree(tmp, ignore_errors=True)  # gone if it became the entry
        os.utime(entry)
        return entry

    def prune(self, keep: set[str]) -> None:
        """Delete the entries not named in ``keep`` that no build has used for
        :data:`PRUNE_AFTER_S` seconds; entries being written (``.<key>.<pid>.tmp``) and other
        hidden names are left alone."""
        now = time.time()
        for path in self.folder.iterdir() if self.folder.is_dir() else []:
            if (path.is_dir() and path.name not in keep and not path.name.startswith(".")
                    and now - path.stat().st_mtime > PRUNE_AFTER_S):
                shutil.rmtree(path, ignore_errors=True)
