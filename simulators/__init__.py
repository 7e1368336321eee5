"""Simulated card shoes that speak the real dialects over the real transports.

The shoe, its runner, a port per transport, ``sim://`` and an event-level shoe for the
engine's tests: docs/shoe-simulator.md.
"""
