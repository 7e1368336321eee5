"""What a drawn dealer-screen frame says, read from its records (for tests)."""

from __future__ import annotations


def alarm_lines(frame, n: int, where: str) -> list[tuple[str, str]]:
    """(what happened, what to do) of each of ``n`` alarms drawn: both said, whole, in
    the strip."""
    out = []
    for i in range(n):
        assert frame.regions["alarms"].contains(frame.regions[f"banner.{i}"]), where
        lines = {}
        for part in ("msg", "act"):
            shown = [t for t in frame.texts if t.role == f"banner.{i}.{part}" and t.text]
            assert shown, f"{where}: alarm {i} does not say its {part}"
            assert not any(t.truncated for t in shown), f"{where}: alarm {i} {part} cut"
            assert all(frame.regions[f"banner.{i}"].contains(t.rect) for t in shown), where
            lines[part] = " ".join(t.text for t in shown)
        out.append((lines["msg"], lines["act"]))
    return out
