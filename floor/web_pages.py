"""The pit page's HTML, rendered on the server; every text from the store is escaped."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import quote

from controller.game.cards import SUIT_SYMBOLS
from controller.game.meters import row_order
from controller.game.numbers import format_money, format_ppm
from floor.web_data import Pit, PitRow
from floor.web_text import LANGS, text

STYLE = """
*{box-sizing:border-box}body{margin:0;font:16px/1.35 system-ui,sans-serif;background:#102018;
color:#eee}header{display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:center;
padding:.6em 1em;background:#0a140f;border-bottom:2px solid #b8963e}h1{font-size:1.3em;
margin:0;color:#e0c060}h2{font-size:1.1em;color:#e0c060;margin:1em 0 .4em}
main{padding:.5em 1em}a{color:#9cf}nav a{margin-left:.6em}.grow{flex:1}
table{border-collapse:collapse;width:100%}th,td{padding:.45em .5em;text-align:left;
border-bottom:1px solid #2c4236;vertical-align:top}th{color:#bba;font-weight:600;
font-size:.85em;text-transform:uppercase}td.n,th.n{text-align:right;
font-variant-numeric:tabular-nums}td.n,td.ago{white-space:nowrap}.online{color:#7d7}.offline,.unknown{color:#f77;
font-weight:700}.stopped{color:#aaa}.alarm{color:#fb4;font-weight:700}.error{color:#f77;
font-weight:700}.lack{color:#f77}.dim{color:#999;font-size:.9em}.r{color:#f55}
.card{display:inline-block;min-width:2.1em;padding:.05em .25em;margin:0 .15em .15em 0;
background:#fafafa;color:#111;border-radius:.25em;text-align:center;font-weight:700}
.card.r{color:#c00}.box{overflow-x:auto}form{max-width:20em;margin:3em auto}
input,button{font-size:1.3em;padding:.4em;width:100%;margin:.3em 0}
#live{font-size:.85em}.ok{color:#7d7}.bad{color:#f77}
@media (max-width:1100px){body{font-size:15px}.wide{display:none}}
"""

SCRIPT = """
const live=document.getElementById('live'),body=document.getElementById('body');
const es=new EventSource(%s);
es.onmessage=e=>{body.innerHTML=e.data;live.textContent=%s;live.className='ok'};
es.onerror=()=>{live.textContent=%s;live.className='bad'};
"""


def page(lang: str, title: str, body: str, stream: str | None = None,
         logged_in: bool = True) -> str:
    """A whole page around ``body``; with ``stream``, the script that swaps in its fragments."""
    langs = "".join(f'<a href="?lang={c}">{c.upper()}</a>' for c in LANGS)
    out = "" if not logged_in else f'<a href="/logout">{text(lang, "logout")}</a>'
    live = f'<span id="live" class="ok">{text(lang, "live")}</span>' if stream else ""
    script = ("<script>" + SCRIPT % (repr(stream), repr(text(lang, "live")),
                                    repr(text(lang, "stale"))) + "</script>") if stream else ""
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            f'<header><h1>{escape(title)}</h1><span class="grow"></span>{live}'
            f'<nav>{langs}{out}</nav></header><main id="body">{body}</main>{script}'
            "</body></html>")


def login(lang: str, problem: str = "") -> str:
    """The login page: one PIN field."""
    note = f'<p class="error">{escape(problem)}</p>' if problem else ""
    body = (f'<form method="post" action="/login">{note}<label>{text(lang, "pin")}'
            '<input name="pin" type="password" inputmode="numeric" autocomplete="off" '
            f'autofocus></label><button type="submit">{text(lang, "login")}</button></form>')
    return page(lang, text(lang, "title"), body, logged_in=False)


def money(minor: int | None, lang: str, currency: str, sign: bool = False) -> str:
    """An amount as the screens write it (minor units as they are: no currency known)."""
    if minor is None:
        return "-"
    if not currency:
        return f"{minor:+d}" if sign else str(minor)
    try:
        return format_money(minor, lang, currency, sign=sign)
    except ValueError:
        return str(minor)


def percent(ppm: int | None, lang: str) -> str:
    """Parts per million as a percentage with two decimals, as ``lang`` writes it (``-``: none)."""
    return "-" if ppm is None else format_ppm(ppm, lang)


def ago(utc: str | None, now: datetime, lang: str) -> str:
    """How long ago an ISO 8601 UTC time was, in a few words of ``lang``."""
    if not utc:
        return text(lang, "never")
    s = max(0, int((now - datetime.fromisoformat(utc)).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= 2 * size:
            return text(lang, "ago", t=f"{s // size} {text(lang, 'unit.' + unit)}")
    return text(lang, "ago", t=f"{s} {text(lang, 'unit.s')}")


def clock(utc: str | None, now: datetime) -> str:
    """An ISO 8601 UTC time as the page writes it: ``16:26:58 UTC``, dated on another day."""
    if not utc:
        return "-"
    t = datetime.fromisoformat(utc)
    t = (t if t.tzinfo else t.replace(tzinfo=UTC)).astimezone(UTC)
    day = "" if t.date() == now.astimezone(UTC).date() else t.strftime("%Y-%m-%d ")
    return f"{day}{t.strftime('%H:%M:%S')} UTC"


def hand(key: str | None, lang: str) -> str:
    """A hand's name in ``lang`` (``straight_flush``: Straight flush); ``""`` for none."""
    if not key:
        return ""
    words = text(lang, f"hand.{key}")
    return key.replace("_", " ") if words == f"hand.{key}" else words


def card(c: str | None) -> str:
    """A card as recall shows it: rank and suit symbol (``10♥``), red suits red."""
    if not c:
        return '<span class="card">?</span>'
    rank = "10" if c[0].upper() == "T" else c[0].upper()
    suit = c[1:2].lower()
    red = " r" if suit in "hd" else ""
    return f'<span class="card{red}">{escape(rank + SUIT_SYMBOLS.get(suit, "?"))}</span>'


def _status(lang: str, status: str) -> str:
    return f'<span class="{escape(status)}">{escape(text(lang, "st." + status))}</span>'


def _alarms(lang: str, alarms: list[tuple[str, str, str]]) -> str:
    if not alarms:
        return f'<span class="dim">{text(lang, "none")}</span>'
    return ", ".join(f'<span class="{"error" if sev == "error" else "alarm"}" '
                     f'data-kind="{escape(kind)}" title="{escape(kind)}">'
                     f"{escape(msg or kind)}</span>" for kind, sev, msg in alarms)


def _recorder(p: Pit, lang: str) -> str:
    r = p.recorder
    cls = "ok" if r.state == "running" and not r.broker_lost_utc else "bad"
    line = text(lang, "rec." + r.state)
    if r.broker_lost_utc:
        line += " — " + text(lang, "rec.broker_lost", t=clock(r.broker_lost_utc, p.now))
    heard = f' <span class="dim">{ago(r.heard_utc, p.now, lang)}</span>' if r.heard_utc else ""
    when = clock(p.now.isoformat(), p.now)
    return (f'<p>{text(lang, "recorder")} {escape(r.client_id)}: <span class="{cls}">'
            f'{escape(line)}</span>{heard} <span class="dim">'
            f'{text(lang, "updated", t=when)}</span></p>')


def pit_fragment(p: Pit, lang: str) -> str:
    """The recorder, then one row a table (what the server pushes to the pit page)."""
    if not p.tables:
        return _recorder(p, lang) + f'<p>{text(lang, "no_tables")}</p>'
    heads = [("table", ""), ("status", ""), ("last_round", "n"), ("ended", ""),
             ("per_hour", "n"), ("drop", "n"), ("hold", "n"), ("par_hold", "n"),
             ("alarms", ""), ("lacking", ""), ("profile", "wide")]
    head = "".join(f'<th class="{c}">{text(lang, k)}</th>' for k, c in heads)
    body = "".join(_pit_row(r, p.now, lang) for r in p.tables)
    return (_recorder(p, lang) + f'<div class="box"><table id="pit"><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table></div>")


def _lacking(lang: str, s: Any) -> str:
    parts = [f'<span class="lack">{escape(x)}</span>'
             for x in [s.lacking, *(s.older_lacking or [])] if x]
    if s.unconfirmed:
        parts.append(f'<span class="dim">{text(lang, "unconfirmed")}</span>')
    if s.forged:
        parts.append(f'<span class="lack">{text(lang, "forged", n=s.forged)}</span>')
    return "<br>".join(parts) or f'<span class="dim">{text(lang, "none")}</span>'


def _pit_row(r: PitRow, now: datetime, lang: str) -> str:
    s = r.status
    tid = escape(s.table_id)
    cells = [
        f'<a href="/table/{quote(s.table_id)}">{tid}</a>', _status(lang, s.status),
        (str(s.last_round) if s.last_round else "-"), ago(s.last_round_utc, now, lang),
        str(s.rounds_last_hour), money(r.drop, lang, r.currency), percent(s.hold_ppm, lang),
        percent(r.expected_hold_ppm, lang), _alarms(lang, r.alarms), _lacking(lang, s),
        escape(r.profile or "-")]
    classes = ["", "", "n", "ago", "n", "n", "n", "n", "", "", "wide"]
    tds = "".join(f'<td class="{c}">{v}</td>' for c, v in zip(classes, cells, strict=True))
    return f'<tr data-table="{tid}" data-round="{s.last_round}">{tds}</tr>'


def table_fragment(r: PitRow, rounds: list[dict[str, Any]], alarms: list[dict[str, Any]],
                   now: datetime, lang: str) -> str:
    """One table: its row of the pit, its last rounds card by card, meters and alarms."""
    s = r.status
    cur = r.currency
    out = [f'<p><a href="/">{text(lang, "back")}</a> · {_status(lang, s.status)} · '
           f'{text(lang, "heard")} {ago(s.heard_utc, now, lang)} · '
           f'{text(lang, "profile")} {escape(r.profile or "-")} · '
           f'{escape(text(lang, "amounts", c=cur or text(lang, "minor")))}</p>',
           f'<h2>{text(lang, "alarms")}</h2><p>{_alarms(lang, r.alarms)}</p>',
           f'<h2>{text(lang, "rounds")}</h2>']
    out.append("".join(_round(x, cur, now, lang) for x in rounds)
               or f'<p class="dim">{text(lang, "no_rounds")}</p>')
    out.append(f'<h2>{text(lang, "meters")}</h2>{_meters(r, lang)}')
    out.append(f'<h2>{text(lang, "alarm_log")}</h2>{_alarm_log(alarms, now, lang)}')
    return "".join(out)


def _round(x: dict[str, Any], cur: str, now: datetime, lang: str) -> str:
    void = x["status"] == "void"
    head = (f'<h3 data-round="{x["round_id"]}">{text(lang, "round")} {x["round_id"]} · '
            f'<span class="{"error" if void else "ok"}">{text(lang, x["status"])}</span>'
            + (f" ({escape(str(x['void_reason']))})" if x.get("void_reason") else "")
            + f' <span class="dim">{clock(x.get("ended_utc"), now)}</span></h3>')
    dealer = "".join(card(c) for c in x.get("dealer_cards") or []) or "-"
    named = hand(x.get("dealer_hand"), lang)
    if named and x.get("dealer_qualifies") is not None:
        named += " · " + text(lang, "qualifies" if x["dealer_qualifies"] else "not_qualify")
    rows = [f'<tr><td>{text(lang, "dealer")}</td><td>{dealer}</td><td>{escape(named)}</td>'
            "<td></td><td></td></tr>"]  # the hand in the bets' column: the widest
    outcomes = x.get("bet_entry") == "outcomes"
    for seat in x.get("seats", []):
        cards = "".join(card(c) for c in seat.get("cards") or []) or "-"
        if outcomes:
            bets = escape(", ".join(text(lang, f"bet.{b}") for b in seat.get("bets") or []))
            net = ""
        else:
            bets = escape(", ".join(f"{text(lang, 'bet.' + k)} {money(v, lang, cur)}"
                                    for k, v in (seat.get("bets") or {}).items()))
            net = money(seat.get("net"), lang, cur, sign=True)
        dec = seat.get("decision")
        rows.append(f'<tr><td>{text(lang, "seat")} {seat["seat"]}</td><td>{cards}</td>'
                    f'<td>{bets}</td><td>{text(lang, dec) if dec else ""}</td>'
                    f'<td class="n">{net}</td></tr>')
    heads = "".join(f"<th>{text(lang, k)}</th>" for k in ("seat", "cards", "bets",
                                                           "decision"))
    return (f'{head}<div class="box"><table class="round"><thead><tr>{heads}'
            f'<th class="n">{text(lang, "net")}</th></tr></thead><tbody>{"".join(rows)}'
            "</tbody></table></div>")


def _meters(r: PitRow, lang: str) -> str:
    if not r.rows:
        return f'<p class="dim">{text(lang, "none")}</p>'
    keys = ("wagered", "paid", "won")
    heads = "".join(f'<th class="n">{text(lang, k)}</th>' for k in (*keys, "hold"))
    heads += "".join(f'<th class="n">{text(lang, k)}</th>' for k in ("n_rounds", "voids",
                                                                      "refunded"))
    body = []
    for name in row_order(r.rows):
        w, p, won, n, v, ref = r.rows[name]
        hold = percent(((won - p) * 2_000_000 + w) // (2 * w), lang) if w > 0 else "-"
        body.append(f"<tr><td>{escape(_meter_name(name, lang))}</td>" + "".join(
            f'<td class="n">{x}</td>' for x in (money(w, lang, r.currency),
                                                money(p, lang, r.currency),
                                                money(won, lang, r.currency), hold, n, v,
                                                money(ref, lang, r.currency))) + "</tr>")
    return (f'<div class="box"><table><thead><tr><th>{text(lang, "meter")}</th>{heads}</tr>'
            f'</thead><tbody>{"".join(body)}</tbody></table></div>')


def _meter_name(name: str, lang: str) -> str:
    seat = name.removeprefix("seat ")
    if seat.isdigit():
        return f'{text(lang, "seat")} {seat}'
    key = "total" if name == "total" else f"bet.{name}"
    words = text(lang, key)
    return name if words == key else words


def _alarm_log(alarms: list[dict[str, Any]], now: datetime, lang: str) -> str:
    if not alarms:
        return f'<p class="dim">{text(lang, "none")}</p>'
    rows = "".join(
        f'<tr><td>{a["seq"]}</td><td class="{"error" if a["severity"] == "error" else "alarm"}">'
        f'{escape(a["kind"])}</td><td>{escape(a["message"])}</td><td>{a["round_id"] or ""}'
        f'</td><td class="dim">{"" if a["sealed"] else text(lang, "provisional")}'
        f' {ago(datetime.fromtimestamp(a["stored_us"] / 1e6, UTC).isoformat(), now, lang)}'
        "</td></tr>" for a in alarms)
    return (f'<div class="box"><table><thead><tr><th>#</th><th>{text(lang, "kind")}</th>'
            f'<th>{text(lang, "message")}</th><th>{text(lang, "round")}</th><th></th></tr>'
            f"</thead><tbody>{rows}</tbody></table></div>")
