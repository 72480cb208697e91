"""The build: what ``mkdocs build`` imports, one module per concern. ``hook.py`` is the hook that
``mkdocs.yml`` names, and runs the steps in order. Nothing here imports the checks, the commands
or the tests. Tests import any module by name."""
