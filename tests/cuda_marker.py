"""The ``cuda`` marker: a check that needs CUDA GPUs, skipped with one reason where too few are.

A page marks such a block with ``<!--pytest.mark.cuda-->`` on the line above its fence
(pytest-codeblocks turns the comment into the marker), and a block that needs more than one GPU
(a program on one GPU per rank) with ``<!--pytest.mark.cuda(devices=2)-->``; a test with
``@pytest.mark.cuda`` or ``@pytest.mark.cuda(devices=2)``. The code is the same on every machine:
on a GPU machine, where torch sees enough CUDA devices, it runs as a reader runs it
(``python -m scripts torch-matrix --cuda`` runs exactly these checks there).

Loaded for every run by ``-p tests.cuda_marker`` in ``pyproject.toml``, not by
``tests/conftest.py``: a conftest's hooks reach only what is collected under its folder, and the
pages' blocks are collected from ``docs/``.
"""

from __future__ import annotations

import pytest

#: The one reason a check marked ``cuda`` gives when it is skipped for want of any GPU.
CUDA_SKIP_REASON = "needs a CUDA GPU: torch.cuda.is_available() is False on this machine"


def skip_reason(marker: pytest.Mark, available: bool, device_count: int) -> str | None:
    """Why a check carrying ``marker`` (``cuda``, with an optional ``devices=N`` keyword, 1 by
    default) cannot run on a machine where ``torch.cuda.is_available()`` is ``available`` and
    ``torch.cuda.device_count()`` is ``device_count``; ``None`` when it can.

    Raises:
        ValueError: when ``devices`` is not a whole number of at least 1.
    """
    devices = marker.kwargs.get("devices", 1)
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(
            f"pytest.mark.cuda(devices=...) takes a whole number >= 1, got {devices!r}"
        )
    if not available:
        return CUDA_SKIP_REASON
    if device_count < devices:
        return (
            f"needs {devices} CUDA GPUs (one per rank): torch.cuda.device_count() is "
            f"{device_count} on this machine"
        )
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each collected check that carries ``cuda`` as skipped, with :func:`skip_reason`'s
    reason, where torch sees no CUDA device or fewer than the marker's ``devices``. torch is
    imported only when such a check was collected."""
    marked = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not marked:
        return
    import torch

    available = torch.cuda.is_available()
    count = torch.cuda.device_count() if available else 0
    for item in marked:
        reason = skip_reason(item.get_closest_marker("cuda"), available, count)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
