"""Simulated card shoes that speak the real dialects over the real transports."""
