"""Build step: the stand-in for the site's PDF, which the home page links.

``python -m scripts site-pdf`` (``scripts/commands/site_pdf.py``) prints the whole site into one
PDF from a built site; the audits and the Pages workflow run it after ``mkdocs build``, and it
writes over this stand-in. Every other build, ``mkdocs serve`` included, ships the stand-in: a
one-page PDF saying how the real one is made, so the home page's link is never broken. The
Chinese build gets its own at ``zh/``, which the Chinese home page links.
"""

from mkdocs.structure.files import File

#: The site's PDF, at the site's root (and at ``zh/`` for the Chinese edition).
PDF_NAME = "embedding-executed.pdf"
#: The stand-in's lines (Latin-1: the PDF's one font is the standard Helvetica).
STAND_IN = [
    f"{PDF_NAME} is printed from a built site by: python -m scripts site-pdf --site DIR",
    "(the published site holds it).",
]


def placeholder_pdf(lines: list[str]) -> bytes:
    """A one-page PDF (bytes, PDF 1.4, A4) showing ``lines`` in 12 pt Helvetica, one a line from
    the top left; a character outside Latin-1 is written ``?``. The file is written by hand: its
    five objects (catalog, page tree, page, font, content stream), then the cross-reference table
    that gives each object's byte offset (ISO 32000-1, 7.5), so the same lines give the same
    bytes."""
    escaped = (line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines)
    shown = b" ".join(b"(" + text.encode("latin-1", "replace") + b") '" for text in escaped)
    # 12 pt text, 16 pt leading, from (56, 780) pt; the ' operator moves to the next line
    stream = b"BT /F1 12 Tf 16 TL 56 780 Td " + shown + b" ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    out += trailer % (len(objects) + 1, xref)
    return bytes(out)


def on_files(files, *, config):
    """Add the stand-in at :data:`PDF_NAME`; in the Chinese build (``theme.language`` ``zh``) a
    second one at ``zh/``, whose source name (``embedding-executed.zh.pdf``) the i18n plugin's
    suffix rule sends to the Chinese home page's link (MkDocs event)."""
    files.append(File.generated(config, PDF_NAME, content=placeholder_pdf(STAND_IN)))
    if config.theme["language"] == "zh":
        name = PDF_NAME.removesuffix(".pdf")
        chinese = File.generated(config, f"{name}.zh.pdf", content=placeholder_pdf(STAND_IN))
        chinese.dest_uri = f"zh/{PDF_NAME}"
        files.append(chinese)
    return files
