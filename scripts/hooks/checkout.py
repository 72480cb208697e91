"""Build step: the build code is the project's own.

MkDocs loads ``scripts/hooks/hook.py`` by its path in ``mkdocs.yml``, but the modules it imports
are found on ``sys.path``. With one virtual environment shared by two checkouts of the project,
the editable install (``pip install -e .``) puts the checkout it was made in on every
``sys.path``, so the other checkout's ``mkdocs build`` would build its pages with that code.
:func:`on_config` stops such a build with the reason and the fix; ``hook.py`` stops it earlier
still when the package imported does not hold ``hook.py`` itself.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

from scripts import ROOT, root_of


def wrong_project(where: Path) -> str | None:
    """Why the imported ``scripts`` package (whose folder is :data:`scripts.ROOT`) cannot build
    the project at ``where`` (the folder of the ``mkdocs.yml`` being built), or ``None`` when it
    is that project's own."""
    if where.resolve() == ROOT:
        return None
    return (
        f"the build code imported is the scripts package of {ROOT}, not that of the project "
        f"being built, {where.resolve()}: run the build with PYTHONPATH set to the project's "
        "folder (or pip install -e it), so that its own build code builds it"
    )


def on_config(config):
    """Stop the build (``PluginError``, :func:`wrong_project`) when the ``scripts`` package
    imported is not the one of the project whose ``mkdocs.yml`` is being built (MkDocs event)."""
    reason = wrong_project(root_of(config))
    if reason is not None:
        raise PluginError(reason)
    return config
