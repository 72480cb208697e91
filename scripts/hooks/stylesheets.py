"""Build step: the site's own stylesheets (``extra_css``), served minified.

``docs/stylesheets/extra.css`` explains each rule in a comment: why it is there, what it measured,
which WCAG criterion it meets. Those comments are for contributors; a reader's browser needs only
the rules. Every page loads the stylesheet before its first paint, and gzip-compressed the
comments are over two thirds of it (4.5 KB with them, 1.4 KB without; measured 2026-11-29), so
the site serves it through ``rcssmin`` (pinned in requirements.txt; a maintained CSS minifier,
https://github.com/ndparker/rcssmin), which drops comments and needless whitespace and changes no
rule. The source file is what ``mkdocs serve`` watches and what a contributor edits.
"""

import rcssmin
from mkdocs.structure.files import File


def on_files(files, *, config):
    """Replace each stylesheet of ``extra_css`` that is a file of the site's docs with its text
    minified by ``rcssmin``, at the same URL (MkDocs event). A stylesheet named by URL is left
    alone."""
    for name in config.extra_css:
        if source := files.get_file_from_path(name):
            files.remove(source)
            css = rcssmin.cssmin(source.content_string)
            files.append(File.generated(config, source.src_uri, content=css))
    return files
