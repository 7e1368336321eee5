"""Dealer-facing and player-facing screens (pygame-ce), rendered from view snapshots."""
