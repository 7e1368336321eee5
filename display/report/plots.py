"""The shift report's plots (matplotlib, no window): PNG images for the PDF.

Set in the screens' DejaVu fonts (Cyrillic reads as on the pages); money stays integer
minor units up to the axis labels.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from controller.game.numbers import format_percent
from controller.game.shift import ReturnLine, Shift, parse_utc
from display.report.labels import ReportText

FONTS = Path(__file__).resolve().parent.parent / "fonts"
"""The screens' bundled fonts."""
DPI = 200
"""Image resolution: sharp on paper at the size the PDF prints them."""
HOUSE = "#1f5c3a"
"""The felt green of the house result line."""
VOID = "#b3261e"
ALARM = "#d08a00"
BAND = "#c9d8ef"
EXACT = "#1d4e89"
MAX_NAMED_VOIDS = 12
"""Voids drawn as labelled lines; more are ticks along the top (never over the result)."""
LABEL_GAP = 0.07
"""Voids closer than this share of the axis' width share one label (``#18–24``)."""
OBSERVED = "#222222"


def _fonts() -> tuple[Any, Any]:
    from matplotlib.font_manager import FontProperties

    return (FontProperties(fname=str(FONTS / "DejaVuSans.ttf"), size=8),
            FontProperties(fname=str(FONTS / "DejaVuSans-Bold.ttf"), size=9))


def _axes(size: tuple[float, float]) -> tuple[Any, Any, Any, Any]:
    """A new figure of ``size`` inches with one plot: (figure, axes, regular, bold font)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=DPI, layout="constrained")
    return (fig, fig.add_subplot(), *_fonts())


def _finish(fig: Any, ax: Any, regular: Any) -> bytes:
    for label in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        label.set_fontproperties(regular)
    for text in (ax.xaxis.label, ax.yaxis.label):
        text.set_fontproperties(regular)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


def house_plot(sh: Shift, text: ReportText, money: Callable[[int], str],
               size: tuple[float, float] = (7.0, 2.6)) -> bytes:
    """The house result over the period as a PNG, voids and alarms marked; ``size``: inches."""
    from matplotlib import dates as mdates
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig, ax, regular, bold = _axes(size)
    start, end = parse_utc(sh.period_from), parse_utc(sh.period_to)
    end = max(end, start + timedelta(seconds=1))  # a period of one instant: a second's axis
    times: list[datetime] = [start] + [parse_utc(t) for t, _, _ in sh.house]
    values = [0] + [v for _, _, v in sh.house]
    times.append(max(end, times[-1]))
    values.append(values[-1])
    ax.step(times, values, where="post", color=HOUSE, linewidth=1.4,
            label=text("plot.house"))
    ax.fill_between(times, values, step="post", color=HOUSE, alpha=0.08)
    ax.axhline(0, color="#888888", linewidth=0.6)
    voids = [(parse_utc(v.utc), v.round_id) for v in sh.voids]
    if len(voids) <= MAX_NAMED_VOIDS:
        for i, (when, _) in enumerate(voids):
            ax.axvline(when, color=VOID, linewidth=0.9, linestyle="--",
                       label=text("plot.void") if i == 0 else None)
        for i, (when, label) in enumerate(void_labels(voids, start, end)):  # each group once,
            ax.annotate(label, (when, 1.0), xycoords=("data", "axes fraction"),  # staggered
                        xytext=(2, -2 - 10 * (i % 2)), textcoords="offset points", va="top",
                        color=VOID, fontproperties=regular)
    elif voids:  # many: ticks along the top edge, the result left clear
        ax.plot([w for w, _ in voids], [1.0] * len(voids), "|",
                transform=ax.get_xaxis_transform(), color=VOID, markersize=7,
                markeredgewidth=0.6, label=text("plot.void"), clip_on=False)
    if sh.alarms:
        ax.plot([parse_utc(a.utc) for a in sh.alarms], [0.02] * len(sh.alarms), "^",
                transform=ax.get_xaxis_transform(), color=ALARM, markersize=5,
                label=text("plot.alarm"), clip_on=False)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, steps=[1, 2, 2.5, 5, 10]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: money(round(y))))
    if max(values) - min(values) < 200:  # nothing won or lost: an axis of a few units
        ax.set_ylim(min(values) - 100, max(values) + 100)
    locator = mdates.AutoDateLocator(tz=start.tzinfo)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(  # numbers: in no language
        locator, tz=start.tzinfo, formats=["%Y", "%m", "%d", "%H:%M", "%H:%M", "%S.%f"],
        zero_formats=["", "%Y", "%m", "%m-%d", "%H:%M", "%H:%M"],
        offset_formats=["", "%Y", "%Y-%m", "%Y-%m-%d", "%Y-%m-%d", "%Y-%m-%d %H:%M"]))
    ax.set_xlim(start, end)
    ax.set_xlabel(text("plot.time"))
    fig.legend(prop=regular, loc="outside upper right", frameon=False, ncols=3)
    return _finish(fig, ax, regular)


def void_labels(voids: list[tuple[datetime, int]], start: datetime, end: datetime
                ) -> list[tuple[datetime, str]]:
    """(first void's time, label) per group of voids within :data:`LABEL_GAP` on the axis.

    Labels read ``#18``, ``#18–24`` or ``#18, 21, 30``.
    """
    span = (end - start).total_seconds() or 1.0
    groups: list[list[tuple[datetime, int]]] = []
    for when, rid in voids:
        if groups and (when - groups[-1][0][0]).total_seconds() / span < LABEL_GAP:
            groups[-1].append((when, rid))
        else:
            groups.append([(when, rid)])
    out = []
    for g in groups:
        ids = [rid for _, rid in g]
        if len(ids) > 2 and ids == list(range(ids[0], ids[-1] + 1)):
            label = f"#{ids[0]}–{ids[-1]}"  # a run of rounds
        elif len(ids) > 3:
            label = f"#{ids[0]}…{ids[-1]} ({len(ids)})"
        else:
            label = "#" + ", ".join(map(str, ids))
        out.append((g[0][0], label))
    return out


def return_plot(line: ReturnLine, text: ReportText, title: str | None = None,
                size: tuple[float, float] = (3.4, 2.4)) -> bytes:
    """One bet's observed return per round, its exact return and ±3 SE, as a PNG (inches)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig, ax, regular, bold = _axes(size)
    exact = float(line.exact)
    ax.set_title(title or text.bet(line.group), fontproperties=bold, loc="left")
    if not line.points:
        ax.text(0.5, 0.5, text("plot.empty"), ha="center", va="center",
                transform=ax.transAxes, fontproperties=regular)
        ax.set_xticks([])
        ax.set_yticks([])
        return _finish(fig, ax, regular)
    n = [p[0] for p in line.points]
    observed = [p[1] for p in line.points]
    se = [p[2] for p in line.points]
    low = [exact - 3 * s for s in se]
    high = [exact + 3 * s for s in se]
    ax.fill_between(n, low, high, color=BAND, step="post", label=text("plot.band"))
    ax.axhline(exact, color=EXACT, linewidth=1.0,
               label=text("plot.exact", value=format_percent(line.exact, text.lang)))
    ax.step(n, observed, where="post", color=OBSERVED, linewidth=1.1,
            label=text("plot.observed"))
    # the first rounds swing widely: the axis frames the rest, and the exact return
    settled = len(n) // 20
    shown = [*observed[settled:], *low[settled:], *high[settled:], exact]
    pad = (max(shown) - min(shown)) * 0.08 or 0.05
    ax.set_ylim(min(shown) - pad, max(shown) + pad)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: format_percent(y, text.lang,
                                                                              0)))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.set_xlim(1, max(n[-1], 2))
    ax.set_xlabel(text("plot.rounds"))
    small = regular.copy()
    small.set_size(6.5)
    fig.legend(prop=small, loc="outside lower center", frameon=False, ncols=2)
    return _finish(fig, ax, regular)
