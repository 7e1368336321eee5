"""Two recorders, one record: a shared subscription group on one store, each killed once.

Three real tables (``threecard run --demo``, dealing fast) feed one real Mosquitto; two
real recorders (``threecard floor serve --share floor``, a client id each) write the same
store, each taking a part of every table's messages. Mid-shift each recorder is killed
(SIGKILL) and started again, the other going on alone meanwhile, and the broker is killed
once (everything it held lost) and started again. Once the tables have stopped, the store
holds exactly each journal's rounds (ids, status, cards, bets, nets: the whole record game
recall shows) and its events, nothing twice, and both recorders stored rounds. On each
kind of store (SQLite file, PostgreSQL).
"""

from __future__ import annotations

import re

from floor_feed import feed_messages, wait_caught_up

PACE_MS = 10  # fast: many rounds in a short shift
IDS = ("TCP-01", "TCP-02", "TCP-03")


def _rows(store: str, sql: str, *args) -> list[tuple]:
    from floor.store import Store

    s = Store(store, readonly=True)
    try:
        return [tuple(r) for r in s.db.execute(sql, args).fetchall()]
    finally:
        s.close()


def test_two_recorders_share_the_feed_and_either_may_die(floor, tmp_path, store_at):
    broker = floor.broker().start()
    journals = {t: tmp_path / f"{t}.sqlite3" for t in IDS}
    tables = {t: floor.table(broker, t, journals[t], PACE_MS) for t in IDS}
    share = ("--share", "floor")

    def recorder(name: str):
        return floor.recorder(broker, store_at, *share, "--client-id", name[:5], name=name)

    def goes_on(rounds: int, timeout: float = 20) -> None:
        """Every table has ``rounds`` more rounds stored than now (and no gap)."""
        now = {t: len(floor.stored(store_at, t)) for t in IDS}
        floor.wait_until(lambda: all(len(floor.stored(store_at, t)) >= now[t] + rounds
                                     for t in IDS), timeout, f"{rounds} rounds more stored")

    recs = {"rec-a": recorder("rec-a"), "rec-b": recorder("rec-b")}
    goes_on(3)
    for name in ("rec-a", "rec-b"):  # each killed; the other goes on alone, then it is back
        recs[name].kill()
        goes_on(3)
        recs[name] = recorder(f"{name}-again")
        goes_on(2)

    dealt = {t: len(floor.finished(journals[t])) for t in IDS}
    broker.kill()  # the tables deal on meanwhile
    floor.wait_until(lambda: all(len(floor.finished(journals[t])) >= dealt[t] + 2
                                 for t in IDS), 20, "the tables to deal with the broker away")
    broker.start()
    goes_on(3, 30)
    for t in IDS:
        assert tables[t].stop() == 0, tables[t].text()[-3000:]
    wait_caught_up(floor, store_at, journals, 30, exact=True)

    counts = {}
    for t in IDS:
        want = floor.finished(journals[t])
        assert floor.stored(store_at, t) == want  # every record, in order, once
        assert [r["round_id"] for r in want] == list(range(len(want), 0, -1))
        events = [(m.body.seq, m.body.kind) for m in feed_messages(journals[t], t)
                  if m.name == "event"]
        held = _rows(store_at, "SELECT seq, kind FROM events WHERE table_id = ? UNION ALL "
                     "SELECT seq, kind FROM pending_events WHERE table_id = ?", t, t)
        assert sorted(held) == events  # sealed, or after the last round's seal: provisional
        counts[t] = (len(want), len(events))
    for p in recs.values():
        assert p.stop() == 0, p.text()[-3000:]
    took = {name: int(re.findall(r"recorder stopped: (\d+) stored", p.text())[-1])
            for name, p in recs.items()}
    print(f"rounds and events per table {counts}; rounds stored by the last recorders {took}")
    assert all(n > 0 for n in took.values()), took  # both took part


def test_recorders_starting_together_on_an_empty_store_both_open_it(request, store_kind,
                                                                    tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    from pg_server import new_store

    from floor.store import Store

    for attempt in range(8):  # a race: one attempt alone mostly misses it
        store, start = new_store(request, store_kind, tmp_path, f"floor{attempt}"), Barrier(4)

        def open_store(_: int, store: str = store, start: Barrier = start) -> set[str]:
            start.wait(10)
            s = Store(store)
            try:
                return s.db.columns("rounds")
            finally:
                s.close()

        with ThreadPoolExecutor(4) as pool:
            columns = list(pool.map(open_store, range(4)))  # raises what any of them raised
        assert all("epoch" in c for c in columns)  # the column a later recorder added
