"""The shift report's last seal: the line a witness keeps, above the signatures.

``threecard verify-journal --witness EVENT:SIGNATURE`` later checks the journal still
holds it: one put back to an older copy, or replaced, does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from controller.game.shift import Shift
from display.report.labels import ReportText

FONT = "DejaVuSans"
"""The report's regular font (registered by :mod:`display.report.document`)."""
FRAME_PADDING = 12
"""Points the page's frame takes off its width (6 a side)."""


def last_seal(sh: Shift, t: ReportText, p: Callable[..., Any], body: Any, width: float
              ) -> list[Any]:
    """The block: a heading, what the line is for, and the line (or why there is none).

    The line is set as large as ``width`` (points) lets it stand whole, to copy in one piece.
    """
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.platypus import KeepTogether, Paragraph

    head = p(t("seal.title"), "h2")
    if sh.last_seal is None or sh.witness is None:
        return [KeepTogether([head, p(t("seal.none" if sh.sealed else "seal.unsealed"))])]
    epoch, seq, _ = sh.last_seal
    size = min(body.fontSize,
               0.97 * (width - FRAME_PADDING) / stringWidth(sh.witness, FONT, 1))
    line = ParagraphStyle("witness", body, fontSize=size, leading=size * 1.4, spaceBefore=2)
    return [KeepTogether([head, p(t("seal.witness", epoch=epoch, seq=seq)),
                          Paragraph(escape(sh.witness), line)])]


__all__ = ["last_seal"]
