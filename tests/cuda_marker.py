"""The ``cuda`` marker: a check that needs a CUDA GPU, skipped with one reason where there is none.

A page marks such a block with ``<!--pytest.mark.cuda-->`` on the line above its fence
(pytest-codeblocks turns the comment into the marker); a test with ``@pytest.mark.cuda``. The
code is the same on every machine: on a GPU machine, where torch sees a CUDA device, it runs as a
reader runs it (``python -m scripts torch-matrix --cuda`` runs exactly these checks there).

Loaded for every run by ``-p tests.cuda_marker`` in ``pyproject.toml``, not by
``tests/conftest.py``: a conftest's hooks reach only what is collected under its folder, and the
pages' blocks are collected from ``docs/``.
"""

from __future__ import annotations

import pytest

#: The one reason a check marked ``cuda`` gives when it is skipped.
CUDA_SKIP_REASON = "needs a CUDA GPU: torch.cuda.is_available() is False on this machine"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each collected check that carries ``cuda`` as skipped, with :data:`CUDA_SKIP_REASON`,
    where torch sees no CUDA device. torch is imported only when such a check was collected."""
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked:
        return
    import torch

    if not torch.cuda.is_available():
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=CUDA_SKIP_REASON))
