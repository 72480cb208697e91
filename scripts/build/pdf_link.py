"""Build step: a one-page stand-in for the whole site's PDF, which the home page links, saying
how the real one is made (``python -m scripts site-pdf`` writes that over it)."""

from __future__ import annotations

from mkdocs.structure.files import File

PDF_NAME = "embedding-executed.pdf"
STAND_IN = [f"{PDF_NAME} is printed from a built site by: python -m scripts site-pdf --site DIR",
            "(the published site holds it)."]


def placeholder_pdf(lines: list[str]) -> bytes:
    """A one-page PDF (bytes) showing ``lines`` (Latin-1 text)."""
    escaped = (line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines)
    stream = b"BT /F1 12 Tf 16 TL 56 780 Td " + b" ".join(
        b"(" + text.encode("latin-1", "replace") + b") '" for text in escaped) + b" ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def on_files(files, *, config):
    """Add the stand-in PDF to the site's files (MkDocs event)."""
    files.append(File.generated(config, PDF_NAME, content=placeholder_pdf(STAND_IN)))
    return files
