"""The floor feed: each table's rounds, meters and alarms on the casino floor's MQTT broker.

A table publishes what its journal records (:mod:`floor.publisher`, fed by
:mod:`floor.follower`); the floor recorder (:mod:`floor.recorder`) verifies each round
against its seals, replays its rows and stores them (:mod:`floor.store`), and publishes a
witness each table checks its journal against. The table never waits for the floor but
for that witness, once as it starts (R1, R7). Topics and payloads: docs/floor-format.md.
"""
