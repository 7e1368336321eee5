"""The shift report as a PDF (reportlab), from a shift's figures.

Page one shows the key figures as tiles, the house result with voids and alarms, and the
meters; outcome rounds count in rounds but not in money (a note says so). Then the returns,
the rules, voids, alarms, actions, identities, anchors, the last seal (what a witness keeps)
and the signature lines, in the screens' DejaVu fonts, embedded.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from controller.game.bet_types import LINE_BETS, NAMES
from controller.game.files import write_new_file
from controller.game.numbers import format_decimal, format_number, format_percent
from controller.game.par_sheet import ParSheet
from controller.game.rules import RuleProfile
from controller.game.shift import BET_GROUPS, ReturnLine, Shift, parse_utc
from display.i18n import format_rtp
from display.report.labels import ReportText
from display.report.plots import FONTS, house_plot, return_plot
from display.report.witness import last_seal

REGULAR, BOLD = "DejaVuSans", "DejaVuSans-Bold"
BETS = NAMES
"""The bet meters, in the order the report lists them."""
METER_WIDTHS = [24, 23, 23, 22, 22, 21, 17, 26]
"""Meter columns in mm (of 178): each heading's longest word fits in every language."""
MIN_HEADING_PT = 7.0
"""No column heading is set smaller (a test holds every language to it)."""
GREEN, GOLD, GREY, LIGHT, RED = "#1f5c3a", "#b08d2c", "#666666", "#eef2ee", "#b3261e"


def _register_fonts() -> None:
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if REGULAR in pdfmetrics.getRegisteredFontNames():
        return
    pdfmetrics.registerFont(TTFont(REGULAR, str(FONTS / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(BOLD, str(FONTS / "DejaVuSans-Bold.ttf")))
    for bold, italic, name in ((0, 0, REGULAR), (1, 0, BOLD), (0, 1, REGULAR), (1, 1, BOLD)):
        addMapping(REGULAR, bold, italic, name)


def _styles() -> dict[str, Any]:
    from reportlab.lib.colors import HexColor
    from reportlab.lib.styles import ParagraphStyle

    base = ParagraphStyle("body", fontName=REGULAR, fontSize=8.5, leading=11)
    return {
        "body": base,
        "small": ParagraphStyle("small", base, fontSize=7, leading=9,
                                textColor=HexColor(GREY)),
        "cell": ParagraphStyle("cell", base, fontSize=7.5, leading=9.5),
        "title": ParagraphStyle("title", base, fontName=BOLD, fontSize=20, leading=24,
                                textColor=HexColor(GREEN)),
        "sub": ParagraphStyle("sub", base, fontSize=10, leading=13),
        "h2": ParagraphStyle("h2", base, fontName=BOLD, fontSize=11.5, leading=15,
                             spaceBefore=8, spaceAfter=4, textColor=HexColor(GREEN),
                             keepWithNext=1),
        "alert": ParagraphStyle("alert", base, fontName=BOLD, textColor=HexColor(RED)),
        "kpi": ParagraphStyle("kpi", base, fontName=BOLD, fontSize=15, leading=18,
                              alignment=1),
        "kpi_label": ParagraphStyle("kpi_label", base, fontSize=7.5, leading=9, alignment=1,
                                    textColor=HexColor(GREY)),
    }


def _time(utc: str) -> str:
    return parse_utc(utc).strftime("%Y-%m-%d %H:%M:%S") if utc else "–"


ALPHABETS = {"uk": "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя"}
"""Alphabets whose letters the code points do not order (Ukrainian і, ї, є, ґ)."""


def alphabetical(text: str, lang: str) -> tuple[Any, ...]:
    """A sort key in the report language's alphabet (case aside; ``é`` sorts with ``e``)."""
    import unicodedata

    folded = text.casefold()
    letters = ALPHABETS.get(lang)
    if letters is not None:
        return tuple(letters.index(c) if c in letters else len(letters) + ord(c)
                     for c in folded), text
    bare = "".join(c for c in unicodedata.normalize("NFD", folded)
                   if not unicodedata.combining(c))
    return bare, folded, text


def _hold(house: int, wagered: int, lang: str) -> str:
    """The house's share of the drop, exact to the last digit shown (Babel's percent)."""
    return format_percent(Fraction(house, wagered), lang) if wagered else "–"


def _head_style(text: str, width: float, style: Any) -> Any:
    """``style`` for a heading ``width`` points wide: wrapped between words, shrunk to fit."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    widest = max((stringWidth(w, BOLD, style.fontSize) for w in text.split()), default=0)
    style.splitLongWords = False
    if widest > width > 0:
        style.fontSize = style.fontSize * width / widest
        style.leading = style.fontSize * 1.25
    return style


def _detail(values: dict[str, str], t: ReportText) -> str:
    """An event's values as one line: ``code JAM; feed jam`` (a text or detail bare)."""
    values = t.setting_words(values)

    def one(k: str, v: str) -> str:
        if k in ("detail", "text", "reason"):
            return v
        name = t.either(f"field.{k}", k.replace("_", " "))
        return name if v == "True" else f"{name} {v}"

    return "; ".join(one(k, v) for k, v in values.items())


class _Builder:
    """Builds the story (the flowables) of one report."""

    def __init__(self, sh: Shift, text: ReportText, made_by: str, now: datetime) -> None:
        from reportlab.lib.units import mm

        self.sh, self.t, self.made_by, self.now = sh, text, made_by, now
        self.st = _styles()
        self.mm = mm
        self.width = 178 * mm
        self.lang = text.lang
        self.money: Callable[[int], str] = lambda minor: text.money(
            minor, sh.currency)  # the table's currency, its digits

    # -- pieces --------------------------------------------------------------------------
    def p(self, text: str, style: str = "body") -> Any:
        from reportlab.platypus import Paragraph

        return Paragraph(escape(text), self.st[style])

    def table(self, header: list[str], rows: Iterable[list[str]], widths: list[float],
              right: Iterable[int] = (), bold_last: bool = False) -> Any:
        """A table: a header, then rows; ``right`` columns are figures, never wrapped."""
        from reportlab.lib.colors import HexColor
        from reportlab.lib.styles import ParagraphStyle
        from reportlab.platypus import Paragraph, Table, TableStyle

        right = set(right)
        cell = self.st["cell"]
        head = [Paragraph(f"<b>{escape(h)}</b>", _head_style(
                    h, w * self.mm - 12, ParagraphStyle("head", cell, alignment=2 * (i in right))))
                for i, (h, w) in enumerate(zip(header, widths, strict=True))]
        body = [[c if i in right else Paragraph(escape(c), cell) for i, c in enumerate(row)]
                for row in rows]
        t = Table([head, *body], colWidths=[w * self.mm for w in widths], repeatRows=1,
                  hAlign="LEFT")
        style = [("FONTNAME", (0, 0), (-1, -1), REGULAR),
                 ("FONTSIZE", (0, 0), (-1, -1), cell.fontSize),
                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                 ("BACKGROUND", (0, 0), (-1, 0), HexColor(LIGHT)),
                 ("LINEBELOW", (0, 0), (-1, 0), 0.6, HexColor(GREEN)),
                 ("LINEBELOW", (0, 1), (-1, -1), 0.25, HexColor("#cccccc")),
                 ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
        for col in right:
            style.append(("ALIGN", (col, 0), (col, -1), "RIGHT"))
        if bold_last and body:
            style += [("LINEABOVE", (0, -1), (-1, -1), 0.6, HexColor(GREEN)),
                      ("FONTNAME", (1, -1), (-1, -1), BOLD)]
        t.setStyle(TableStyle(style))
        return t

    def image(self, png: bytes, width: float) -> Any:
        from reportlab.lib.utils import ImageReader
        from reportlab.platypus import Image

        w, h = ImageReader(io.BytesIO(png)).getSize()
        return Image(io.BytesIO(png), width=width, height=width * h / w)

    def role(self, name: str) -> str:
        return self.t.either(f"role.{name}", name) if name else self.t("role.pending")

    # -- sections ------------------------------------------------------------------------
    def heading(self) -> list[Any]:
        from reportlab.platypus import Spacer

        sh, t = self.sh, self.t
        out = [self.p(t("title"), "title"),
               self.p(t("subtitle", table=", ".join(sh.table_ids()),
                        rules=", ".join(x.label for x in sh.profiles()))
                      + " · " + t("amounts", currency=sh.currency), "sub"),
               self.p(t("period", start=_time(sh.period_from), end=_time(sh.period_to),
                        hours=format_decimal(sh.hours, self.lang, 2)), "sub")]
        if sh.in_play is not None:
            out.append(self.p(t("period.in_play", round=sh.in_play), "small"))
        for s in sh.clock_steps:  # the period is taken on the times they correct: said here
            back, days, clock = s.parts()
            out.append(self.p(t("clock.back" if back else "clock.forward", seq=s.seq,
                                time=_time(s.utc), days=days, clock=clock), "small"))
        if len(sh.rules) > 1:  # what was in force when, each change of table id or rules
            out.append(self.p(t("rules.in_force", lines="; ".join(
                t("rules.from", time=_time(x.utc), table=x.table_id, rules=x.label)
                for x in sh.rules)), "small"))
        recorded = {i.software["sha256"] for i in sh.identities
                    if i.software and i.software.get("sha256")}
        last = sh.identities[-1].software if sh.identities else None
        if last and last.get("sha256"):
            line = t("software.header", version=last["version"], sha256=last["sha256"])
            if len(recorded) > 1:
                line += " " + t("software.more", n=len(recorded))
            out.append(self.p(line, "small"))
        for ident in sh.altered:  # GLI-11: altered software, on the page that is read
            sw = ident.software or {}
            out.append(self.p(t("software.alarm", time=_time(ident.utc), n=sw.get("altered", 0),
                                when=t("software.before" if ident.before
                                       else "software.started"),
                                version=sw.get("version", "?"), sha256=sw.get("sha256") or "–",
                                names=", ".join(sw.get("named", ())) or sw.get("problem", "")),
                              "alert"))
        if not sh.trusted:
            out.append(self.p(t("journal.broken", message=sh.verdict.message), "alert"))
        out.append(Spacer(1, 3 * self.mm))
        return out

    def tiles(self) -> Any:
        from reportlab.lib.colors import HexColor
        from reportlab.platypus import Table, TableStyle

        sh, t = self.sh, self.t
        total = sh.rows.get("total", [0] * 6)
        house = total[2] - total[1]
        lang = self.lang
        per_hour = format_decimal(sh.settled / sh.hours, lang, 1) if sh.hours > 0 else "–"
        figures = [(t("kpi.settled"), format_number(sh.settled, lang)),
                   (t("kpi.voided"), format_number(sh.voided, lang)),
                   (t("kpi.per_hour"), per_hour), (t("kpi.drop"), self.money(total[0])),
                   (t("kpi.house"), self.money(house)),
                   (t("kpi.hold"), _hold(house, total[0], lang))]
        from reportlab.pdfbase.pdfmetrics import stringWidth

        room = self.width / 6 - 8
        size = min([16.0] + [16.0 * room / stringWidth(v, BOLD, 16) for _, v in figures])
        small: list[Any] = [self.p(k, "kpi_label") for k, _ in figures]
        if sh.outcomes:  # how many of the rounds were dealt as outcomes
            for i, n in ((0, sh.settled_as_outcomes), (1, sh.voided_as_outcomes)):
                small[i] = [small[i], self.p(t("kpi.as_outcomes", n=n), "kpi_label")]
        tab = Table([[v for _, v in figures], small], colWidths=[self.width / 6] * 6,
                    rowHeights=[26, None])
        tab.setStyle(TableStyle([
            ("BACKGROUND", (0, 0), (-1, -1), HexColor(LIGHT)),
            ("LINEAFTER", (0, 0), (-2, -1), 2, HexColor("#ffffff")),
            ("FONTNAME", (0, 0), (-1, -1), REGULAR), ("FONTNAME", (0, 0), (-1, 0), BOLD),
            ("FONTSIZE", (0, 0), (-1, 0), size),
            ("ALIGN", (0, 0), (-1, 0), "CENTER"), ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
            ("TOPPADDING", (0, 0), (-1, 0), 6), ("BOTTOMPADDING", (0, 1), (-1, 1), 6),
            ("TEXTCOLOR", (4, 0), (4, 0), HexColor(RED if house < 0 else GREEN))]))
        return tab

    def meters(self, names: list[str], label: Callable[[str], str], title: str) -> list[Any]:
        """A meter table whose rows reconcile on their face: house win = won - paid."""
        t = self.t
        header = [t(title), t("col.wagered"), t("col.won"), t("col.paid"), t("col.house"),
                  t("col.hold"), t("col.rounds"), t("col.refunded")]
        rows = []
        for name in [*names, "total"]:
            w, paid, won, rounds, _voids, refunded = self.sh.rows.get(name, [0] * 6)
            rows.append([label(name), self.money(w), self.money(won), self.money(paid),
                         self.money(won - paid), _hold(won - paid, w, self.lang),
                         format_number(rounds, self.lang), self.money(refunded)])
        return [self.table(header, rows, METER_WIDTHS, right=range(1, 8),
                           bold_last=True)]

    def outcomes_note(self) -> list[Any]:
        """Under the money tables, when rounds were dealt as outcomes: what they leave out."""
        from reportlab.platypus import Spacer

        sh = self.sh
        if not sh.outcomes:
            return []
        return [Spacer(1, 1.5 * self.mm),
                self.p(self.t("outcomes.note", settled=sh.settled_as_outcomes,
                              voided=sh.voided_as_outcomes), "small")]

    def outcome_meters(self) -> list[Any]:
        """The period's outcome meters, if any, as the dealer screen shows them."""
        from controller.game.table_views import paytables_for
        from display.outcome_mode import meter_table

        sh, t = self.sh, self.t
        if not sh.outcomes:
            return []
        heads, body = meter_table(t, tuple(sorted(sh.outcomes.items())),
                                  paytables_for(sh.profile))
        return [self.p(t("screen.outcome_meters"), "h2"),
                self.table(heads, body, [30, 82, 20, 22, 24], right=range(2, 5))]

    def bet_label(self, name: str) -> str:
        return self.t("word.total") if name == "total" else self.t.bet(name)

    def seat_label(self, name: str) -> str:
        if name == "total":
            return self.t("word.total")
        return self.t("word.seat_n", seat=name.split()[1])

    def returns(self) -> list[Any]:
        from reportlab.platypus import Table, TableStyle

        sh, t = self.sh, self.t
        strategy = ", ".join(dict.fromkeys("-".join(x.sheet.strategy.min_play_hand)
                                           for x in sh.profiles()))
        bets = {group: t.bet(group) for group in BET_GROUPS}
        out = [self.p(t("sec.returns"), "h2"),
               self.p(t("returns.note", strategy=strategy, **bets), "small")]
        lines = sh.returns or [ReturnLine("ante_play", sh.sheet.ante_play.rtp,
                                          sh.sheet.ante_play.rtp, 0, 0, (), sh.rules[-1].label)]
        named = len(sh.profiles()) > 1  # each plot says the profile it compares with
        half = self.width / 2 - 2 * self.mm
        images = [self.image(return_plot(line, t, f"{t.bet(line.group)} · {line.profile}"
                                         if named else None), half) for line in lines]
        grid = [images[i:i + 2] for i in range(0, len(images), 2)]
        if len(grid[-1]) == 1:
            grid[-1].append("")
        tab = Table(grid, colWidths=[self.width / 2] * 2)
        tab.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), REGULAR)]))
        out.append(tab)
        return out

    def rules(self) -> list[Any]:
        """Each rule profile in force over the period: paytables and exact returns."""
        out: list[Any] = []
        for line in self.sh.profiles():
            out += self.profile(line.profile, line.label, line.sheet)
        return out

    def profile(self, prof: RuleProfile, label: str, sheet: ParSheet) -> list[Any]:
        from reportlab.platypus import Spacer, Table, TableStyle

        t = self.t
        out = [self.p(t("sec.rules", name=label), "h2"),
               self.p(t("rules.qualifier", q=prof.qualifier.text)), Spacer(1, 2 * self.mm)]
        blocks = []
        for bet in LINE_BETS:
            pays = sorted(getattr(prof, bet).items(), key=lambda kv: -kv[1])
            if pays:
                rows = [[t.hand(k), t.odds(v)] for k, v in pays]
                blocks.append(self.table([t.bet(bet), t("col.pays")], rows, [34, 20],
                                         right=[1]))
        row = Table([blocks], colWidths=[self.width / 3] * len(blocks), hAlign="LEFT")
        row.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("FONTNAME", (0, 0), (-1, -1), REGULAR),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        strategy = "-".join(sheet.strategy.min_play_hand)
        ret_rows = []
        for group in BET_GROUPS:
            paytable = sheet.ante_play if group == "ante_play" else getattr(sheet, group)
            if paytable is None:
                continue
            played = sheet.with_strategy.get(group, paytable)
            ret_rows.append([t.bet(group), format_rtp(round(paytable.rtp * 1_000_000), t.lang),
                             format_rtp(round(played.rtp * 1_000_000), t.lang)])
        edge = round(sheet.strategy.house_edge_per_wager * 1_000_000)
        ret_rows.append([t("bet.ante_play") + ", " + t("rules.edge"), "",
                         format_rtp(edge, t.lang)])
        returns = self.table([t("rules.returns"), t("rules.paytable"),
                              t("rules.strategy", strategy=strategy)], ret_rows,
                             [70, 30, 30], right=[1, 2])
        return [*out, row, Spacer(1, 3 * self.mm), returns]

    def voids(self) -> list[Any]:
        sh, t = self.sh, self.t
        out = [self.p(t("sec.voids"), "h2")]
        mixed = bool(sh.outcomes)  # rounds dealt as outcomes: each void says how it was dealt
        rows = []
        for v in sh.voids:
            entry = [t(f"entry.{v.bet_entry}")] if mixed else []
            rows.append((v.seq, [_time(v.utc), str(v.round_id), *entry, t("kind.void"),
                                 t.either(f"void.{v.reason}", v.reason), self.role(v.declared_by),
                                 self.role(v.approved_by)]))
        for i in sh.irregularities:
            detail = _detail(i.detail, t)
            if i.kind == "deck_blocked":  # why: a card seen twice, an unknown card
                detail = t.either(f"void.{detail}", detail)
            rows.append((i.seq, [_time(i.utc), str(i.round_id), *([""] if mixed else []),
                                 t(f"kind.{i.kind}"), detail,
                                 "" if i.by else self.role("table"), self.role(i.by) if i.by
                                 else ""]))
        if not rows:
            return [*out, self.p(t("none"))]
        rows.sort(key=lambda r: r[0])
        header = [t("col.time"), t("col.round"), *([t("col.bet_entry")] if mixed else []),
                  t("col.what"), t("col.reason"), t("col.declared"), t("col.approved")]
        widths = [33, 14, 24, 34, 27, 23, 23] if mixed else [33, 14, 36, 49, 23, 23]
        return [*out, self.table(header, [r for _, r in rows], widths)]

    def alarms(self) -> list[Any]:
        sh, t = self.sh, self.t
        out = [self.p(t("sec.alarms"), "h2")]
        if not sh.alarms:
            return [*out, self.p(t("none"))]
        rows = [[_time(a.utc), str(a.round_id), t(f"alarm.{a.kind}"), _detail(a.detail, t)]
                for a in sh.alarms]
        header = [t("col.time"), t("col.round"), t("col.what"), t("col.detail")]
        return [*out, self.table(header, rows, [33, 14, 40, 91])]

    def actions(self) -> list[Any]:
        sh, t = self.sh, self.t
        out = [self.p(t("sec.actions"), "h2")]
        if not sh.role_actions:
            return [*out, self.p(t("none"))]
        rows = [[_time(a.utc), str(a.round_id), self.role(a.actor),
                 t.either(f"cmd.{a.command}", a.command),
                 _detail(a.detail, t),
                 t("result.refused", reason=t.refusal(a.refusal, sh.currency) if a.refusal
                   else a.rejected) if a.rejected else t("result.done")]
                for a in sh.role_actions]
        header = [t("col.time"), t("col.round"), t("col.role"), t("col.command"),
                  t("col.detail"), t("col.result")]
        return [*out, self.table(header, rows, [33, 14, 23, 30, 44, 34])]

    def counters(self) -> list[Any]:
        sh, t = self.sh, self.t
        out = [self.p(t("sec.counters"), "h2")]
        if not sh.counters:
            return [*out, self.p(t("none"))]
        rows = sorted(([t.either(f"counter.{k}", k.replace("_", " ")),
                        format_number(v, self.lang)] for k, v in sh.counters.items()),
                      key=lambda row: alphabetical(row[0], self.lang))  # as the reader reads
        return [*out, self.table([t("col.counter"), t("col.count")], rows, [70, 20], right=[1])]

    def software(self) -> list[Any]:
        sh, t = self.sh, self.t
        out = [self.p(t("sec.software"), "h2")]
        if not sh.identities:
            return [*out, self.p(t("none"))]
        rows = []
        for ident in sh.identities:
            s = ident.software
            if s is None:
                what = t("software.none")
            elif s.get("problem"):
                what = t("software.problem", version=s["version"], problem=s["problem"])
            elif s.get("altered"):
                what = t("software.altered", version=s["version"], sha256=s["sha256"],
                         n=s["altered"], names=", ".join(s.get("named", ())))
            else:
                what = t("software.ok", version=s["version"], sha256=s["sha256"],
                         files=s["files"])
            when = t("software.before") if ident.before else t("software.started")
            rows.append([_time(ident.utc), when, what])
        return [*out, self.table([t("col.time"), t("col.what"), t("col.detail")], rows,
                                 [33, 28, 117])]

    def journal(self) -> list[Any]:
        from reportlab.platypus import KeepTogether

        sh, t = self.sh, self.t
        v = sh.verdict
        counts = {"snapshots": v.snapshots_checked, "rounds": v.rounds_checked}
        verdict = [self.p(t("journal.broken", message=v.message), "alert") if not v.ok else
                   self.p(t("journal.ok", events=v.events, **counts)) if v.checked_from <= 1
                   else self.p(t("journal.ok_from", before=v.checked_from - 1, **counts))]
        if v.ok and v.checked_from > 1:  # what was checked before, and how: in words
            verdict.append(self.p(t("journal.unreplayed", first=v.unreplayed[0],
                                    last=v.unreplayed[1]) if v.unreplayed else
                                  t("journal.before", before=v.checked_from - 1)))
        if v.ok and v.anchor_seq is not None:
            verdict.append(self.p(t("journal.anchored", seq=v.anchor_seq)))
        verdict += [self.p(t.note(note), "small") for note in v.notes  # said above
                    if getattr(note, "key", "") != "unreplayed"]
        rows = [[t("journal.start"), str(sh.start.seq), sh.start.hash],
                [t("journal.end"), str(sh.end.seq), sh.end.hash]]
        return [KeepTogether([  # the anchors under their heading
            self.p(t("sec.journal"), "h2"), *verdict,
            self.table([t("journal.anchor"), t("journal.event"), t("journal.hash")], rows,
                       [38, 24, 116], right=[1])])]

    def signatures(self) -> list[Any]:
        from reportlab.lib.colors import HexColor
        from reportlab.platypus import KeepTogether, Table, TableStyle

        t = self.t
        rows = [[self.p(t("sign.dealer"), "h2"), "", "", self.p(t("sign.supervisor"), "h2"),
                 ""]]
        for field in ("sign.name", "sign.signature", "sign.date"):
            rows.append([self.p(t(field), "small"), "", "", self.p(t(field), "small"), ""])
        tab = Table(rows, colWidths=[22 * self.mm, 60 * self.mm, 14 * self.mm, 22 * self.mm,
                                     60 * self.mm],
                    rowHeights=[None] + [11 * self.mm] * 3, hAlign="LEFT")
        tab.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                                 ("FONTNAME", (0, 0), (-1, -1), REGULAR),
                                 ("SPAN", (0, 0), (1, 0)), ("SPAN", (3, 0), (4, 0)),
                                 ("LINEBELOW", (1, 1), (1, -1), 0.6, HexColor(GREY)),
                                 ("LINEBELOW", (4, 1), (4, -1), 0.6, HexColor(GREY))]))
        return [KeepTogether([self.p(t("sec.sign"), "h2"), tab])]

    def story(self) -> list[Any]:
        from reportlab.platypus import CondPageBreak, PageBreak, Spacer

        sh, t, mm = self.sh, self.t, self.mm
        seats = sorted((k for k in sh.rows if k.startswith("seat ")),
                       key=lambda k: int(k.split()[1]))
        story = [*self.heading(), self.tiles(), Spacer(1, 4 * mm),
                 self.p(t("sec.house"), "h2"),
                 self.image(house_plot(sh, t, self.money), self.width),
                 self.p(t("sec.bets"), "h2"),
                 *self.meters([b for b in BETS if b in sh.rows], self.bet_label, "col.bet"),
                 self.p(t("meters.note"), "small"),
                 CondPageBreak(60 * mm), self.p(t("sec.seats"), "h2"),
                 *self.meters(seats, self.seat_label, "col.seat"), *self.outcomes_note(),
                 PageBreak(), *self.outcome_meters(), *self.returns(), *self.rules(),
                 *self.voids(), *self.alarms(), *self.actions(), *self.counters(),
                 *self.software(), *self.journal(),
                 *last_seal(sh, t, self.p, self.st["body"], self.width), Spacer(1, 6 * mm),
                 *self.signatures()]
        return story


def write_pdf(sh: Shift, out: Path, lang: str = "en", made_by: str = "",
              now: datetime | None = None) -> int:
    """Write the shift report to ``out`` (whole or not at all) in ``lang``; the pages written.

    ``made_by`` is the writing software's version for the footer; ``now`` defaults to now.

    Raises:
        OSError: the file cannot be written.
    """
    from reportlab.lib.colors import HexColor
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.platypus import SimpleDocTemplate

    _register_fonts()
    text = ReportText(lang)
    now = now or datetime.now(UTC)
    builder = _Builder(sh, text, made_by, now)
    made = text("made", time=now.strftime("%Y-%m-%d %H:%M"), version=made_by or "?")

    def footer(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont(REGULAR, 7)
        canvas.setFillColor(HexColor(GREY))
        canvas.drawString(16 * mm, 10 * mm, text("page", table=sh.table_id, page=doc.page))
        canvas.drawRightString(A4[0] - 16 * mm, 10 * mm, made)
        if not sh.trusted:  # on every page: a page taken alone still says it
            canvas.setFont(BOLD, 9)
            canvas.setFillColor(HexColor(RED))
            canvas.drawCentredString(A4[0] / 2, A4[1] - 9 * mm, text("journal.banner"))
        canvas.restoreState()

    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=A4, leftMargin=16 * mm, rightMargin=16 * mm,
                            topMargin=14 * mm, bottomMargin=16 * mm,
                            title=f"{text('title')} · {sh.table_id}", author=sh.table_id,
                            subject=text("period", start=_time(sh.period_from),
                                         end=_time(sh.period_to),
                                         hours=format_decimal(sh.hours, lang, 2)),
                            creator=f"threecard-table {made_by}".strip(), lang=lang,
                            initialFontName=REGULAR)
    doc.build(builder.story(), onFirstPage=footer, onLaterPages=footer)
    write_new_file(out, buf.getvalue())  # whole, or not at all (the file there stays)
    return doc.page
