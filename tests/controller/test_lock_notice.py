"""A lock is named at once, then not again for 10 minutes, then once a minute (R20)."""

from __future__ import annotations

import logging

from controller.lock_notice import LockNotice


class Status:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def status(self, text: str) -> None:
        self.sent.append(text)


def run(notice: LockNotice, clock: list[float], until: float, locked, fault=False,
        step: float = 0.25) -> None:
    """The watchdog loop's calls every ``step`` seconds up to ``until``."""
    while clock[0] < until:
        notice.show(locked, fault)
        clock[0] += step


def test_a_lock_that_lasts_is_logged_once_then_after_10_minutes_once_a_minute(caplog):
    caplog.set_level(logging.INFO, logger="threecard")
    clock, status = [0.0], Status()
    notice = LockNotice(status, clock=lambda: clock[0])
    run(notice, clock, 1000.0, "integrity check failed: event 9")
    assert len(caplog.records) == 1 + 7               # at 0; at 600, 660, ... 960
    assert all(r.levelno == logging.ERROR and "TABLE LOCKED: integrity check failed"
               in r.getMessage() and "technician" in r.getMessage() for r in caplog.records)
    assert [r.getMessage().endswith(f"(for {m} minutes)") for r, m in
            zip(caplog.records[1:], range(10, 17), strict=True)] == [True] * 7
    assert status.sent == ["TABLE LOCKED: integrity check failed: event 9"]  # STATUS once


def test_a_journal_fault_is_named_as_one_and_its_clearing_said_once(caplog):
    caplog.set_level(logging.INFO, logger="threecard")
    clock, status = [0.0], Status()
    notice = LockNotice(status, clock=lambda: clock[0])
    run(notice, clock, 30.0, None)
    assert not caplog.records and not status.sent    # nothing to say
    run(notice, clock, 42.0, "journal fault: database or disk is full; retrying", True)
    run(notice, clock, 100.0, None)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and lines[0].startswith("JOURNAL FAULT: database or disk is full")
    assert caplog.records[0].levelno == logging.ERROR and "cleared after 12 s" in lines[1]
    assert status.sent == ["JOURNAL FAULT: database or disk is full; retrying",
                           "journal fault cleared after 12 s; play goes on"]
