"""The build's budget (``python -m scripts build-imports``): code lines only, so a docstring, a
comment, a blank line or the formatter's line breaks never count against it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from scripts import ROOT
from scripts.commands.build_imports import BUDGET, code_lines

SOURCE = textwrap.dedent(
    '''\
    """A module docstring,
    over two lines."""

    import os  # a comment


    def f(a, b):
        """A docstring."""
        # a comment line
        if a:
            return call(
                a,
                b,
            )
        else:
            return """not a docstring,
            a string"""


    class C:
        """Documented."""

        x = 1
    '''
)


def test_code_lines_count_statements_and_clause_headers_only():
    # import, def, if, return (one, over four lines), else, return, class, x = 1
    assert code_lines(SOURCE) == 8
    spread = SOURCE.replace("import os  # a comment", "import os\n\n\n# more\n")
    assert code_lines(spread) == 8
    assert code_lines(SOURCE.replace('"""A docstring."""', '"""A much\n    longer one."""')) == 8
    joined = SOURCE.replace(
        "call(\n                a,\n                b,\n            )", "call(a, b)"
    )
    assert code_lines(joined) == 8


def test_the_modules_the_build_loads_stay_within_the_budget():
    """What the hook imports (and the Markdown extension mkdocs.yml names), counted as the
    command counts them; the command itself builds the site, which a test here need not."""
    code = (
        "import json, sys; import scripts.hooks.hook, scripts.hooks.markdown_math; "
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
        "if n == 'scripts' or n.startswith('scripts.'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    files = json.loads(out)
    assert any(f.endswith("hooks/hook.py") for f in files)
    total = sum(code_lines(open(f, encoding="utf-8").read()) for f in files)
    assert total <= BUDGET, f"the build's modules hold {total} code lines, over {BUDGET}"
