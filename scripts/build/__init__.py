"""The build: what ``mkdocs build`` imports. ``hook.py``, the hook ``mkdocs.yml`` names, runs the
steps of the other modules in order."""
