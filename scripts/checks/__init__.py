"""Checks of a built site: each a subcommand of ``python -m scripts``. They use the build, never
the reverse."""
