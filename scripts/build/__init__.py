"""The site's build steps, one module per concern; ``build.py`` is the hook that ``mkdocs.yml``
names, and runs them in order. Tests import any module by name."""
