"""The floor feed: every table's rounds, meters and alarms on the casino floor's MQTT broker.

A table publishes what its journal records (:mod:`floor.publisher`, fed by
:mod:`floor.follower`, its position kept by :mod:`floor.outbox`); the floor recorder
(:mod:`floor.recorder`, ``threecard floor serve``) verifies every round against the
journal's seals (:mod:`floor.sealed`), derives what it stores from the journal's own rows
with the game's replay (:mod:`floor.derive`), stores it in SQLite (:mod:`floor.store`),
checks each table's continuity and asks a table to send again what it lacks; it publishes
a witness of what it verified, which each table checks its journal against
(:mod:`floor.witness`). ``threecard floor rounds`` and ``status`` read the store, ``floor
enrol`` pins a table's verification key in it, and ``threecard verify-journal
--floor-store`` compares a journal with it (:mod:`floor.anchors`).

Topics, under ``<prefix>/<table id>/`` (the prefix is ``threecard`` unless configured),
every payload a JSON object naming the table (``table``) and, from a table, its journal
(``journal``: the hash of the journal's first event, so a table's new journal is a new
series):

``round``
    QoS 1. Every settled or voided round, as the journal itself: ``round_id`` (the round
    whose end made it), ``journal_id`` (the journal's id, which its seals sign),
    ``after`` (the event of the seal that closed the previous round; 0 at the journal's
    start), ``rows`` (every event after it up to the seal closing this round, each
    ``[seq, utc, mono_ns, kind, actor, body]`` as the chain hashes it), ``seals`` (the
    seals of those epochs, oldest first, each ``epoch``, ``seq``, ``head``, ``next_key``,
    ``signature``: the ones taken in between and the one closing the round, whose event
    is the last row), ``chains`` (the chain starts among those epochs: the journal's
    first, with the verification key, in the message from its start), ``sent_us``
    (publisher's clock, microseconds: for the latency figures only). The recorder takes
    nothing of it on trust: it recomputes the chain, checks each signature with the key
    it expects, and derives the records and events from the rows.
``event``
    QoS 1. Alarms, voids, irregularities (each notice the table shows, when it appears or
    changes) and role actions (an input made with a supervisor's or technician's PIN, or a
    PIN that matched no role): ``seq``, ``kind``, ``severity``, ``message``... Provisional
    on the floor until the seal of its round comes, then replaced by the events the
    sealed rows make.
``meters``
    QoS 1, retained. The meters and event counters after the newest round (a retained
    copy older, by ``seq``, than the one the recorder holds is left aside, as for
    ``state``).
``state``
    QoS 1, retained. ``last_round`` (the newest finished round, so a round lost at the end
    of a shift is noticed), its ``seq`` and ``hash``, the round in play and the open
    alarms.
``status``
    QoS 1, retained. ``online`` (at each connection, and every 10 s as the table's
    heartbeat: a table silent for 30 s is offline on the floor), or ``offline`` (also the
    last will: a table that vanishes; the broker publishes it after the ``online`` of the
    same connection, and the recorder keeps the status it received last, per journal).
``resend``
    Recorder to table: ``{"journal": ..., "from_round": N}``; the table sends its rounds from
    N again, read from its journal, and the ``event`` messages after round N-1's end.
``witness``
    Recorder to table, QoS 1, retained: ``{"table": ..., "journals": [...]}``, for each of
    the table's journals the newest seal the recorder verified (``journal``,
    ``journal_id``, ``epoch``, ``seq``, ``round_id``, ``signature``). A table locks when its
    journal is behind it or holds another seal for that epoch.

A message larger than the broker takes (the Maximum Packet Size of its CONNACK) goes in
parts on its own topic (:class:`~floor.messages.Part`: ``whole``, the SHA-256 of the whole
payload, ``part`` and ``parts``, ``data``, a slice of its bytes in base64), which the
recorder joins and checks before it takes the whole as if it had come in one
(:mod:`floor.parts`, :mod:`floor.sending`; docs/floor-format.md).

Nothing here writes the journal's chain or derived tables: the table never waits for the
floor (docs/requirements.md R1 and R7 stand as they are), but for the witness, read once
as it starts (10 s at most).
"""
