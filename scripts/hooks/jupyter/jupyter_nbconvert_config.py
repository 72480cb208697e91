"""nbconvert settings for the build, read when mkdocs-jupyter runs a notebook.

``scripts/hooks/notebook_cache.py`` puts this folder on ``JUPYTER_CONFIG_PATH`` for the build's
process only; nothing outside the build reads it.

The kernel that runs a notebook talks to the build over Unix domain sockets (ZeroMQ's ``ipc``
transport) instead of TCP ports on 127.0.0.1. Over TCP, ipykernel warns at every start that its
messages travel unencrypted; over sockets in Jupyter's runtime folder, which only the user can
open (mode 0700), no other user of the machine and nothing on the network can reach the kernel,
which is why ipykernel does not warn. The socket files are named after this process and a random
id, so concurrent builds never share one, and the kernel deletes them when it stops.
"""

import os
import uuid

from jupyter_core.paths import jupyter_runtime_dir
from nbconvert.exporters.exporter import Exporter

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

runtime = jupyter_runtime_dir()
os.makedirs(runtime, mode=0o700, exist_ok=True)
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(runtime, f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}")

# One output per stream per cell. The kernel sends a cell's printed text in chunks as its buffer
# is flushed, so where a chunk boundary falls depends on timing (a busy machine splits a cell's
# lines differently), and each chunk would be rendered as an output block of its own: two builds
# of the same notebook would differ. nbconvert's CoalesceStreamsPreprocessor merges consecutive
# chunks, but its place in nbconvert's default list is before ExecutePreprocessor, where there
# is nothing to merge yet; here it runs right after. (nbclient's own coalesce_streams option is
# not configurable, and mkdocs-jupyter passes its preprocessors as an argument, which replaces a
# configured HTMLExporter.preprocessors list: the default list is the place left.)
_COALESCE = "nbconvert.preprocessors.CoalesceStreamsPreprocessor"
_EXECUTE = "nbconvert.preprocessors.ExecutePreprocessor"
_order = [name for name in Exporter.class_traits()["default_preprocessors"].default()
          if name != _COALESCE]
_order.insert(_order.index(_EXECUTE) + 1, _COALESCE)
c.HTMLExporter.default_preprocessors = _order
c.CoalesceStreamsPreprocessor.enabled = True
