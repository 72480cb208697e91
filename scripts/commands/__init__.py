"""The contributor's commands: each a subcommand of ``python -m scripts``."""
