"""The project's code, in three rooms importing one way (commands -> checks -> hooks): ``hooks/``
(what ``mkdocs build`` imports), ``checks/`` (checks of a built site) and ``commands/`` (the
subcommands of ``python -m scripts``). What only the tests use is in ``tests/``."""

from pathlib import Path

#: The project's folder (``mkdocs.yml``, ``docs/``, ``snippets/``): the one place it is worked out.
ROOT = Path(__file__).resolve().parent.parent


def root_of(config) -> Path:
    """The folder of the ``mkdocs.yml`` that ``config`` (MkDocs' configuration) was read from."""
    return Path(config.config_file_path).resolve().parent
