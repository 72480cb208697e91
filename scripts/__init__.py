"""The project's own code, in three rooms that import one way (commands -> checks -> build):
``scripts/build/`` (what ``mkdocs build`` imports), ``scripts/checks/`` (checks of a built site)
and ``scripts/commands/`` (the subcommands of ``python -m scripts``). The tests' own code is in
``tests/``."""

from pathlib import Path

#: The project's folder (``mkdocs.yml``, ``docs/``, ``snippets/``): the one place it is worked out.
ROOT = Path(__file__).resolve().parent.parent


def root_of(config) -> Path:
    """The folder of the ``mkdocs.yml`` that ``config`` (MkDocs' configuration) was read from."""
    return Path(config.config_file_path).resolve().parent
