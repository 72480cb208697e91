"""Build step: the theme's templates are compiled once, not at every build.

MkDocs makes a new Jinja environment for every build, so each ``mkdocs serve`` rebuild compiled
Material's templates again (about 0.15 s of a 1.8 s rebuild on two cores). Jinja's own bytecode
cache (https://jinja.palletsprojects.com/en/stable/api/#bytecode-cache) keeps each compiled
template in ``.cache/jinja/``, under a key of the template's name and source checksum that Jinja
checks itself, and of the Python version; an edited override or a new Material compiles anew.
The pages are the same either way.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemBytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

#: Where compiled templates are kept, relative to the project (mkdocs.yml's folder).
CACHE_DIR = Path(".cache") / "jinja"


def on_env(env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
    """Give the build's Jinja environment the bytecode cache (MkDocs event)."""
    folder = Path(config.config_file_path).resolve().parent / CACHE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = FileSystemBytecodeCache(str(folder))
    return env
