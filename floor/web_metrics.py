"""``/metrics``: the floor in Prometheus' text format, read from the store at scrape time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from floor import web_data

STATUSES = ("online", "offline", "stopped", "unknown")


class FloorCollector(Collector):
    """Every figure of the floor, read at scrape time through ``read`` (the server's reader)."""

    def __init__(self, read: Callable[[Callable[[Any], Any]], Any]) -> None:
        self.read = read

    def collect(self) -> Iterator[Metric]:
        """Yield the metric families of the store as it stands now."""
        now = datetime.now(UTC)
        pit, rounds, lacking, forged, lag = self.read(lambda s: (
            web_data.pit(s, now), web_data.stored_rounds(s), web_data.rounds_lacking(s),
            web_data.forged(s), web_data.recorder_lag_us(s)))
        yield from _tables(pit, rounds, lacking, forged, now)
        yield from _recorder(pit, lag, now)


def _tables(pit: web_data.Pit, rounds: dict[str, int], lacking: dict[str, int],
            forged: dict[str, int], now: datetime) -> Iterator[Metric]:
    g = GaugeMetricFamily
    stored = CounterMetricFamily("threecard_floor_rounds", "Rounds the floor recorded of "
                                 "the table (every journal, those pruned into archives "
                                 "too)", labels=["table"])
    status = g("threecard_floor_table_status", "1 for the table's status as the floor sees "
               "it", labels=["table", "status"])
    money = {k: g(f"threecard_floor_{k}_minor_units", f"{w} (the table's total meter of its "
                  "current journal, minor units)", labels=["table", "currency"])
             for k, w in (("drop", "Amount wagered"), ("paid", "Paid to players beyond "
                                                        "their stakes"),
                          ("won", "Lost by players"))}
    hold = g("threecard_floor_hold_ratio", "Won minus paid over wagered", labels=["table"])
    par = g("threecard_floor_par_hold_ratio", "The hold the profile's exact returns give for "
            "what was staked", labels=["table", "profile"])
    per_hour = g("threecard_floor_rounds_last_hour", "Rounds that ended in the last hour",
                 labels=["table"])
    alarms = g("threecard_floor_alarms_open", "Warnings and errors the table shows",
               labels=["table"])
    heard = g("threecard_floor_table_heard_age_seconds", "Seconds since the recorder last "
              "heard the table", labels=["table"])
    lack = g("threecard_floor_rounds_lacking", "Rounds of the table's journals the floor "
             "lacks (on their way or not)", labels=["table"])
    refused = CounterMetricFamily("threecard_floor_records_refused", "Messages on the "
                                  "table's topics refused as forged", labels=["table"])
    for r in pit.tables:
        tid, s = r.status.table_id, r.status
        stored.add_metric([tid], rounds.get(tid, 0))
        for st in STATUSES:
            status.add_metric([tid, st], 1 if s.status == st else 0)
        for k, v in (("drop", r.drop), ("paid", r.paid), ("won", r.won)):
            if v is not None:
                money[k].add_metric([tid, r.currency], v)
        if s.hold_ppm is not None:
            hold.add_metric([tid], s.hold_ppm / 1_000_000)
        if r.expected_hold_ppm is not None:
            par.add_metric([tid, r.profile], r.expected_hold_ppm / 1_000_000)
        per_hour.add_metric([tid], s.rounds_last_hour)
        alarms.add_metric([tid], len(r.alarms))
        if r.heard_us:
            heard.add_metric([tid], max(0.0, now.timestamp() - r.heard_us / 1e6))
        lack.add_metric([tid], lacking.get(tid, 0))
        refused.add_metric([tid], forged.get(tid, 0))
    yield from (stored, status, *money.values(), hold, par, per_hour, alarms, heard, lack,
                refused)


def _recorder(pit: web_data.Pit, lag_us: int | None, now: datetime) -> Iterator[Metric]:
    r = pit.recorder
    up = GaugeMetricFamily("threecard_floor_recorder_up", "1 while the recorder runs and "
                           "reaches the broker", labels=["client_id"])
    up.add_metric([r.client_id], 1 if r.state == "running" and not r.broker_lost_utc else 0)
    yield up
    if r.heard_utc:
        yield GaugeMetricFamily(
            "threecard_floor_recorder_heartbeat_age_seconds", "Seconds since the recorder "
            "last wrote that it runs",
            value=max(0.0, (now - datetime.fromisoformat(r.heard_utc)).total_seconds()))
    if lag_us is not None:
        yield GaugeMetricFamily(
            "threecard_floor_recorder_lag_seconds", "Send-to-store time of the round "
            "stored last", value=max(0, lag_us) / 1e6)


def registry(read: Callable[[Callable[[Any], Any]], Any]) -> CollectorRegistry:
    """A registry holding only the floor's collector (no process metrics of the server)."""
    reg = CollectorRegistry(auto_describe=False)
    reg.register(FloorCollector(read))
    return reg
