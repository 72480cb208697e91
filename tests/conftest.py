"""Shared test settings.

Blocks on the pages seed their own random generators, so a reader who copies one gets the same
numbers as the page; nothing here changes what a block prints.
"""

import matplotlib

matplotlib.use("Agg")  # figures render without a display
