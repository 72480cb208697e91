"""The build, what ``mkdocs build`` imports: ``hook.py`` runs the other modules' steps in order."""
