"""The words the build adds to a page, in the page's language.

Each language's words are in one Jinja partial of the theme's custom folder,
``docs/.overrides/partials/page-text/<language>.html`` (``en.html``, ``zh.html``), which a
translator edits as Material's own ``partials/languages/<language>.html``. Its macros turn the
data that build steps put on a page (the facts line under its title, the Chinese edition's
notes) into HTML or Markdown, so no sentence of a page is written in Python and no HTML is
translated after it was written.
"""

import functools
import html
from collections.abc import Sequence
from pathlib import Path

import jinja2
from markupsafe import Markup

from scripts import ROOT

#: The partial of a language, relative to a folder of the theme.
PARTIAL = "partials/page-text/{language}.html"
#: The theme's custom folder (``theme.custom_dir`` of mkdocs.yml), where the partials are.
OVERRIDES = (str(ROOT / "docs" / ".overrides"),)


def language_of(page) -> str:
    """``"zh"`` for a Chinese page (its source is ``docs/<page>.zh.md``), else ``"en"``: an English
    page, the English pages that the Chinese build shows at ``zh/`` included."""
    if page.file.src_uri.endswith(".zh.md"):
        return "zh"
    return "en"


def words(language: str, dirs: Sequence[str] = ()):
    """The partial of ``language`` as a Jinja template module: its macros (``matrix``,
    ``download``, ...) and its top-level ``set`` values are its attributes; a macro returns
    ``Markup`` (a ``str``). ``dirs``: the theme's folders (MkDocs' ``config.theme.dirs``), looked
    in first, then :data:`OVERRIDES` (so a made-up project of a test, without the custom folder,
    has the site's words). Read again when the file changes (``mkdocs serve``). Raises
    ``jinja2.TemplateNotFound`` for a language without a partial, and a macro raises
    ``jinja2.UndefinedError`` when the data lacks a key it writes."""
    name = PARTIAL.format(language=language)
    folders = (*dirs, *OVERRIDES)
    path = next((Path(d) / name for d in folders if (Path(d) / name).is_file()), None)
    if path is None:
        raise jinja2.TemplateNotFound(name)
    return _module(folders, name, path.stat().st_mtime_ns)


def escape(value) -> Markup:
    """The partials' ``e`` (and ``escape``) filter: ``value`` as text in HTML, escaped as Python's
    ``html.escape`` escapes it (``'`` as ``&#x27;``, ``"`` as ``&quot;``), like the rest of the
    site's HTML that the build writes, where Jinja's own filter writes ``&#39;`` and ``&#34;``."""
    return Markup(html.escape(str(value)))


@functools.lru_cache(maxsize=8)  # one per language and version of its file
def _module(dirs: tuple[str, ...], name: str, mtime_ns: int):
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(dirs)), undefined=jinja2.StrictUndefined
    )
    env.filters["e"] = env.filters["escape"] = escape
    return env.get_template(name).module
