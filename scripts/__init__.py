"""The project's own code, in three rooms that import one way (commands -> checks -> build):

* ``scripts/build/``: what ``mkdocs build`` imports (the hook ``mkdocs.yml`` names, its steps,
  the execute stage, the math extension);
* ``scripts/checks/``: checks of a built site (they build it or read it);
* ``scripts/commands/``: the contributor's commands, each a subcommand of ``python -m scripts``.

What only the tests use lives under ``tests/``.
"""

from pathlib import Path

#: The project's folder (``mkdocs.yml``, ``docs/``, ``snippets/``): the one place it is worked out.
ROOT = Path(__file__).resolve().parent.parent


def root_of(config) -> Path:
    """The folder of the project a build builds: its ``mkdocs.yml``'s (``config``, MkDocs'
    configuration). :data:`ROOT` for this site; a test's made-up project has its own."""
    return Path(config.config_file_path).resolve().parent
