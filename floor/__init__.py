"""The floor feed: every table's rounds, meters and alarms on the casino floor's MQTT broker.

A table publishes what its journal records (:mod:`floor.publisher`, fed by
:mod:`floor.follower`, its position kept by :mod:`floor.outbox`); the floor recorder
(:mod:`floor.recorder`, ``threecard floor serve``) stores every table's rounds in SQLite
(:mod:`floor.store`), checks each table's continuity and asks a table to send again what it
lacks; ``threecard floor rounds`` and ``status`` read the store, and
``threecard verify-journal --floor-store`` compares a journal with it
(:mod:`floor.anchors`).

Topics, under ``<prefix>/<table id>/`` (the prefix is ``threecard`` unless configured),
every payload a JSON object naming the table (``table``) and its journal (``journal``: the
hash of the journal's first event, so a table's new journal is a new series):

``round``
    QoS 1. Every settled or voided round: ``round_id``, ``record`` (the record game recall
    shows), ``seq`` and ``hash`` of the round's last event (the newest event that changed
    its record), ``prev_seq`` and ``prev_hash`` of the previous round's last event (0 and
    the chain's genesis hash before round 1), ``sent_us`` (publisher's clock, microseconds:
    for the latency figures only; the recorder orders what it receives by its arrival),
    ``events`` (how many ``event`` messages came after the previous round's end).
``event``
    QoS 1. Alarms, voids, irregularities (each notice the table shows, when it appears or
    changes) and role actions (an input made with a supervisor's or technician's PIN, or a
    PIN that matched no role): ``seq``, ``kind``, ``severity``, ``message``...
``meters``
    QoS 1, retained. The meters and event counters after the newest round (a retained
    copy older, by ``seq``, than the one the recorder holds is left aside, as for
    ``state``).
``state``
    QoS 1, retained. ``last_round`` (the newest finished round, so a round lost at the end
    of a shift is noticed), its ``seq`` and ``hash``, the round in play, the open alarms
    and ``events`` (how many ``event`` messages came after the last round's end): the
    recorder counts the events it holds against these and asks again for the rest.
``status``
    QoS 1, retained. ``online`` (at each connection, and every 10 s as the table's
    heartbeat: a table silent for 30 s is offline on the floor), or ``offline`` (also the
    last will: a table that vanishes; the broker publishes it after the ``online`` of the
    same connection, and the recorder keeps the status it received last, per journal).
``resend``
    Recorder to table: ``{"journal": ..., "from_round": N}``; the table sends its rounds from
    N again, read from its journal, and the ``event`` messages after round N-1's end.

Nothing here writes the journal's chain or derived tables: the table never waits for the
floor (docs/requirements.md R1 and R7 stand as they are).
"""
