"""The site's build hooks (``hooks:`` in mkdocs.yml), a package that tests import by name."""

from __future__ import annotations

import importlib


def kept(module_name: str, name: str, here: dict) -> object:
    """``name`` from the module ``module_name`` as imported by name, which stays loaded for the
    life of the process; ``here`` is the calling hook's ``globals()``.

    MkDocs loads each hook from its file as a new module at every build, so at every ``mkdocs
    serve`` rebuild: a memo held in that module would start empty each time. A hook calls its
    remembering functions through this, and so shares the memo of the copy imported by name.
    Raises ``ImportError`` or ``AttributeError`` when there is no such module or name.
    """
    if here.get("__name__") == module_name:
        return here[name]
    return getattr(importlib.import_module(module_name), name)
