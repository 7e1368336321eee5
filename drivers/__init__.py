"""Shoe drivers: transports that move bytes and dialects that turn bytes into events."""
