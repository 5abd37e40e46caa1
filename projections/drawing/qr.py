"""A signed checkpoint as a QR code, to publish where players look (the wall, the
report): the note's whole text, signatures included, drawn by ``segno``."""

from __future__ import annotations

import io

import segno


def qr_svg(text: str, scale: int = 3) -> str:
    """The SVG element of a QR code holding ``text`` (error correction M)."""
    out = io.BytesIO()
    segno.make(text, error="m", micro=False).save(out, kind="svg", scale=scale, xmldecl=False, svgns=True,
                                                   title="the signed checkpoint")
    return out.getvalue().decode()
