"""The floor feed: each table's rounds, meters and alarms on the casino floor's MQTT broker.

Tables publish what their journals record; the recorder verifies each round against its
seals and stores it. The table never waits for the floor but for its witness, once as
it starts (R1, R7). Topics, payloads and rules: docs/floor-format.md.
"""
