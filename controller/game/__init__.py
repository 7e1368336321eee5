"""The pure game core: no drivers, display, simulators, hardware, argparse (architecture.md)."""
