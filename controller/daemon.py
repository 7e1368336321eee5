"""``threecard run``: the table daemon. Shoe link, round engine, journal and screens.

Its start-up order (R3: nothing happens until the self-check passes) and its stop:
docs/start-up.md. Shoe, display and simulator packages load when used: headless, no screen
is drawn and pygame is not loaded, unless an input script plays on the screens.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller import cli, journal_watch, screens
from controller.autoplay import QUIET_MS, AutoPlayer, autoplay_bets, autoplay_loop
from controller.cli import counted, input_script, line_handler, wagers, whole_number
from controller.floor_link import NO_FEED, add_floor_arguments, open_floor
from controller.game.bet_types import ANTE
from controller.game.config import (
    DEMO_SHOE,
    LOG_LEVELS,
    MAX_SEATS,
    MIN_SEATS,
    ConfigError,
    TableConfig,
    load_config,
    pin_problem,
)
from controller.game.control_line import MAX_CONTROL_LINE, parse_control_line
from controller.game.inputs import Checked, InputError
from controller.game.languages import LANGUAGES
from controller.game.numbers import format_number
from controller.game.settlement import BetError
from controller.game.table_views import check_returns
from controller.game.views import DealerView, PlayerView
from controller.lock_notice import LockNotice
from controller.notify import Heartbeats, Notifier, WatchdogTiming
from controller.round_log import RoundLog
from controller.shoe_link import check_shoe, open_shoe, shoe_schemes
from controller.stdin_lines import read_lines

log = logging.getLogger("threecard")

DEMO_PACE_MS = 900  # the demo's pause between dealer steps with screens: a person follows
DEMO_HEADLESS_PACE_MS = 100  # headless, one line per round: rounds come quickly
MAX_PACE_MS = 60_000  # the longest --pace-ms: a minute between dealer steps
JOURNAL_CHECK_EXTEND_S = 15.0  # asked of systemd at each sign of the start-up check's progress

#: threads that may end on their own: the control channel, the journal's and environment's checks
_MAY_END = frozenset({"control", "journal-check", "environment-check"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``run``'s options (flags override the configuration file)."""
    from drivers.dialects import DIALECTS

    parser.add_argument("--config", help="the table's TOML configuration file (without one: "
                        "the built-in settings; systemd/table.toml.example shows every key)")
    parser.add_argument("--demo", action="store_true",
                        help="simulated shoe, autoplay at a human pace, a temporary journal "
                        "deleted at exit (--journal PATH keeps it); stop with Ctrl+C")
    parser.add_argument("--shoe", help="shoe URL, e.g. serial:///dev/card-shoe?dialect=beetek; "
                        f"schemes: {', '.join(shoe_schemes())}")
    parser.add_argument("--dialect", choices=DIALECTS,
                        help="shoe dialect when the shoe URL names none")
    parser.add_argument("--rules", help="rule profile: live, classic or a TOML path")
    parser.add_argument("--seats", type=whole_number(MIN_SEATS, MAX_SEATS),
                        help=f"number of seats ({MIN_SEATS}-{MAX_SEATS})")
    parser.add_argument("--journal", metavar="PATH",
                        help="journal file (SQLite); default: [journal] path of --config, "
                        "else ./journal.sqlite3 in the working folder. PATH.lock beside it "
                        "is the one-writer lock: it stays after a stop, and is reused")
    parser.add_argument("--headless", action="store_true",
                        help="no window (SDL dummy driver); one log line per round")
    parser.add_argument("--autoplay", action="store_true",
                        help="automatic bets (--bets) on every seat, Q-6-4 decisions, settle")
    parser.add_argument("--bets", type=wagers,
                        help='autoplay wagers, minor units, e.g. {"ante": 100, "pair_plus": 25} '
                        "(default: ante 500, pair plus 100, 6 card bonus 100, less what the "
                        "rules do not offer)")
    parser.add_argument("--rounds", type=whole_number(1),
                        help="stop after N settled rounds (1 or more; default: until stopped)")
    parser.add_argument("--lang", choices=LANGUAGES, help="screen language")
    parser.add_argument("--dealer-size", metavar="WIDTHxHEIGHT", type=cli.window_size,
                        help="dealer window size, e.g. 800x480 for a 7-inch panel")
    parser.add_argument("--log-level", choices=LOG_LEVELS, help="the lowest level logged")
    parser.add_argument("--pace-ms", type=whole_number(0, MAX_PACE_MS), default=None,
                        help="autoplay pause between dealer steps, 0 to "
                        f"{MAX_PACE_MS} milliseconds, a minute (demo default "
                        f"{DEMO_PACE_MS}, headless {DEMO_HEADLESS_PACE_MS})")
    parser.add_argument("--supervisor-pin", default=None,
                        help="PIN autoplay uses for its supervisor steps (acknowledging a "
                        "void, voiding an interrupted round, unblocking the deck); with no "
                        "[roles] in the configuration it becomes the table's supervisor PIN: "
                        "for testing and the demo, never on a live table")
    parser.add_argument("--control-stdin", action="store_true",
                        help="read dealer commands as JSON lines on stdin, e.g. "
                        '{"command": "void", "reason": "...", "pin": "2468"}')
    parser.add_argument("--input-script", metavar="FILE", type=input_script, help="play dealer "
                        "touches and keys from a JSON-lines file (README: Input scripts)")
    add_floor_arguments(parser)
    cli.note_overrides(parser, cli.RUN_FLAGS)


def _setup_logging(level: str) -> None:
    """Log to stdout (the system journal under systemd), one escaped line per record."""
    handler = line_handler(sys.stdout)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper()))


class Daemon:
    """The running table: owns the table thread, the shoe link and the screens.

    Args:
        config: the validated configuration.
        autoplay: wagers per seat for autoplay (bet type -> minor units), or None.
        rounds: stop after this many settled rounds, or None.
        pace_ms: autoplay pause between dealer steps and between cards, milliseconds.
        supervisor_pin: PIN autoplay uses for supervisor steps (demo), or None.
        control_stdin: read dealer commands as JSON lines from stdin.
        notifier: the systemd notifier (a disabled one when not under systemd).
    """

    input_script: Any = None  # touches and keys played on the dealer screen (run() sets it)
    key_folder: str | None = None  # the seal keys' folder (None: the state folder)

    def __init__(self, config: TableConfig, *, autoplay: dict[str, int] | None = None,
                 rounds: int | None = None, pace_ms: int = 0, supervisor_pin: str | None = None,
                 control_stdin: bool = False, notifier: Notifier | None = None) -> None:
        self.config = config
        self.autoplay = autoplay
        self.rounds = rounds
        self.pace = pace_ms / 1000
        self.supervisor_pin = supervisor_pin
        self.control_stdin = control_stdin
        self.notifier = notifier or Notifier()
        self.stop_event = threading.Event()
        self.watchdog = WatchdogTiming.from_environ()
        self.heartbeats = Heartbeats(max_age_ms=self.watchdog.stale_after_ms)
        self.roundlog = RoundLog(profile=config.profile)
        self.table: Any = None
        self.software: dict[str, Any] = {}  # the identity journaled at start-up
        self.checked = threading.Event()  # the environment's record journaled: scripts start
        self.link: Any = None
        self.app: Any = None
        self.floor: Any = NO_FEED  # the floor feed (controller.floor_link)
        self.video_problem = ""  # why SDL's video last did not start (said once)
        self._threads: list[threading.Thread] = []
        self._crashed: set[str] = set()  # threads that ended on an exception
        self._held = False  # locked at start by an earlier full check's mark
        self._status_said = ""  # the shoe's, screens' and floor's state STATUS last said
        self.anchor_level = logging.INFO  # the demo lowers it: one line per round there

    # -- start-up -------------------------------------------------------------------
    def self_check(self) -> dict[str, int]:
        """Compute the profile's exact return (R3) from the stored counts, and check it.

        Raises:
            ConfigError: a bet returns 100 % or more, or not its published return, or the
                stored counts are damaged (:func:`~controller.game.table_views.check_returns`).
        """
        rtp = dict(check_returns(self.config.profile))  # as the player screen shows them
        # the log's English, exact: no locale data loaded for it before READY
        log.info("self-check: rules %s, return to player %s", self.config.profile.name,
                 ", ".join(f"{k} {v // 10_000}.{v % 10_000:04d}%" for k, v in rtp.items()))
        return rtp

    def _table_config(self) -> TableConfig:
        """The configuration the table plays by, PIN hashes from ``[roles]`` or the flag."""
        import hashlib

        from controller.game.auth import DEMO_PINS, demo_pin_hashes, hash_pin

        c = self.config
        pins = dict(c.pin_hashes)
        if not pins and self.supervisor_pin == DEMO_PINS["supervisor"]:
            pins = demo_pin_hashes()  # the demo's documented PINs, nothing else
        elif not pins and self.supervisor_pin:
            # only the PIN given on the command line; a stable salt keeps restarts quiet
            salt = hashlib.sha256(b"threecard-cli-pin:" + self.supervisor_pin.encode())
            pins = {"supervisor": hash_pin(self.supervisor_pin, salt.digest()[:16])}
        if "supervisor" not in pins and "technician" not in pins:
            log.warning("no supervisor or technician PIN configured ([roles] in the "
                        "configuration): voids, manual cards and deck unblock cannot be "
                        "authorised")
        return replace(c, pin_hashes=pins)

    def open(self) -> None:
        """Self-check, open the journal and table, the screens, then the shoe link."""
        from controller.game.table import Table
        from controller.identity import startup_identity
        from controller.journal import JournalError

        self.self_check()
        if self.stop_event.is_set():  # a stop asked during the check: open nothing more
            return

        def verifying(done: int, todo: int) -> None:  # start-up may outlast TimeoutStartSec
            self.notifier.extend_timeout(JOURNAL_CHECK_EXTEND_S, f"verifying the journal: "
                                         f"{format_number(done)} of "
                                         f"{format_number(todo)} events")

        self.software = startup_identity()
        try:
            self.table = Table(self.config.journal_path, self._table_config(),
                               on_publish=self._on_publish, progress=verifying,
                               software=self.software,
                               screens=cli.screens_record(self.config), keys=self.key_folder)
        except JournalError as exc:
            raise ConfigError(f"journal: {exc}") from None
        if self.table.journal.chain_started and self.key_folder is None:  # for the record
            print(f"verification key: {self.table.journal.verification_key}", file=sys.stderr)
        held = journal_watch.broken_mark(self.config.journal_path)  # an earlier check's: at once
        if held and not self.table.locked:
            self.table.lock(held)
        self._held = held is not None
        self.floor = open_floor(self.config, self.table, resume="run")  # its witness first
        if self.table.locked:
            log.error("TABLE LOCKED: %s", self.table.locked)
        self.table.start()
        self._open_screens()
        self._open_link()
        self._on_publish(*self.table.views())

    def _open_screens(self) -> None:
        """The screens (:func:`controller.screens.open_screens`: the dealer's waited for)."""
        self.app = screens.open_screens(self)

    @property
    def screen_names(self) -> tuple[str, ...]:
        """The screens this run opens (:func:`controller.screens.screen_names`)."""
        return screens.screen_names(self.config, self.input_script)

    @property
    def screens_missing(self) -> list[str]:
        """The screens this run opens that are not open now."""
        return [n for n in self.screen_names
                if self.app is None or n not in self.app.outputs]

    def _say_status(self, dv: DealerView) -> None:
        """STATUS again when the shoe, a screen or the floor changed (a lock says its own)."""
        tail = self._status_tail(dv)
        if tail != self._status_said and not getattr(self.table, "locked", None):
            self._status_said = tail
            self.notifier.status(f"table {self.config.table_id} running{tail}")

    def _status_tail(self, dv: DealerView) -> str:
        """``; shoe online`` (with a wrong dialect's hint), the screens, the floor's broker."""
        hint = " (no frame decoded: is the dialect right?)" if any(
            b.kind == "no_frame" for b in dv.banners) else ""
        floor = ("; floor broker not connected" if self.floor is not NO_FEED
                 and not getattr(self.floor, "connected", True) else "")
        return f"; shoe {dv.link_state}{hint}{self._screens_note()}{floor}"

    def _screens_note(self) -> str:
        """``; player screen missing (why)`` per screen not open, and why none is seen."""
        return screens.screens_note(self.app, self.screen_names)

    def _open_link(self) -> None:
        self.link = open_shoe(self.config, self.table.inbox)
        self.link.start()
        log.info("shoe link started: %s (%s dialect)", self.config.shoe_url, self.link.dialect)

    # -- views ----------------------------------------------------------------------
    def _on_publish(self, dv: DealerView, pv: PlayerView) -> None:
        ended = self.roundlog.update(dv, pv)
        if ended and self.table is not None:
            # an anchor outside the journal: `verify-journal --anchor SEQ:HASH` checks it
            j = self.table.journal
            log.log(self.anchor_level, "journal head %d %s", j.last_seq, j.last_hash[:32])
        if ended:
            self._status_said = tail = self._status_tail(dv)
            self.notifier.status(f"round {self.roundlog.last_logged} {ended}; "
                                 f"{self.roundlog.settled} settled{tail}")
        else:
            self._say_status(dv)
        if ended:
            if self.rounds is not None and self.roundlog.settled >= self.rounds:
                log.info("%s settled: stopping", counted(self.roundlog.settled, "round"))
                self.stop_event.set()

    # -- threads --------------------------------------------------------------------
    def _spawn(self, name: str, target: Any) -> None:
        def guarded() -> None:
            try:
                target()
            except Exception:  # noqa: BLE001 - reported, and the watchdog stops
                self._crashed.add(name)
                log.exception("thread %s crashed", name)
            finally:
                if not self.stop_event.is_set() and name not in _MAY_END:
                    log.error("thread %s ended unexpectedly", name)
        t = threading.Thread(target=guarded, name=name, daemon=True)
        self._threads.append(t)
        t.start()

    def _autoplay_loop(self) -> None:
        sim = getattr(self.link, "simulator", None)

        def deal_if_due(view: DealerView) -> None:
            if view.next_card is not None and view.link_state == "online":
                sim.deal()

        # a shoe that deals by itself: open a round only once it has fallen quiet
        autoplay_loop(self.table, AutoPlayer(bets=self.autoplay or {ANTE: 100},
                                             pin=self.supervisor_pin),
                      self.stop_event, pace=self.pace,
                      on_idle=deal_if_due if sim is not None else None,
                      on_betting=(lambda _v: sim.load_deck()) if sim is not None else None,
                      quiet=QUIET_MS / 1000 if sim is None else 0.0)

    def handle_control_line(self, line: str | bytes) -> bool:
        """Take one control line: a dealer command as a JSON object (``--control-stdin``).

        A line that does not parse is logged with why and never reaches the table; a
        refusal is logged in words, in the screens' language.

        Returns:
            True when a command was submitted.
        """
        line = line.strip()
        if not line:
            return False
        try:
            command = parse_control_line(line)
        except InputError as exc:  # an unknown command too: nothing journaled, a warning
            log.warning("control: refused %r: %s", line[:200], exc)
            return False
        log.info("control: %s", command.name)
        from display.i18n import Translator  # the screens' words (no screen library)

        for v in self.table.ask(Checked(command)) or ():  # read against its declaration
            if not v.accepted:  # why, in words, in the screens' language
                words = (v.reason if v.refusal.code == "input_invalid" else  # the field named
                         Translator(self.config.language).refusal(v.refusal,
                                                                  self.config.currency))
                log.warning("control: refused %s: %s", command.name, words)
        return True

    def _control_loop(self, fd: int | None = None) -> None:
        """Read control lines until end of input (``fd``: default stdin's).

        The descriptor itself is read (no buffered reader whose lock a daemon thread would
        hold at exit); a line too long is refused whole.
        """
        fd = sys.stdin.fileno() if fd is None else fd
        for line in read_lines(fd, MAX_CONTROL_LINE):
            if line is None:
                log.warning("control: refused a line longer than %d bytes", MAX_CONTROL_LINE)
                continue
            try:
                self.handle_control_line(line)
            except Exception:  # noqa: BLE001 - one line never ends the control channel
                log.exception("control: line %r could not be handled", line[:200])
        log.info("control: end of input on stdin (no more dealer commands from it)")

    def _health(self) -> list[str]:
        """What keeps the watchdog from being fed: hung loops and ended threads."""
        limit = self.watchdog.stale_after_ms
        problems = [f"{name} loop silent for more than {limit} ms"
                    for name in self.heartbeats.stale()]
        if self.table is None:
            problems.append("no table")
        else:
            if (time.monotonic() - self.table.heartbeat) * 1000 > limit:
                problems.append(f"table thread silent for more than {limit} ms")
        if self.link is not None and not self.link.alive:
            problems.append("shoe link thread ended")
        problems += [f"thread {t.name} ended" for t in self._threads
                     if t.name not in _MAY_END and not t.is_alive()]
        problems += [f"thread {name} crashed" for name in sorted(self._crashed)
                     if name in _MAY_END]
        return problems

    def _watchdog_loop(self) -> None:
        """Feed systemd's watchdog every ``feed_every_ms`` while :meth:`_health` is clear.

        A tick goes to the table thread every ``check_every_ms`` (an idle table beats); a
        lock or fault is named in the log and STATUS (:mod:`controller.lock_notice`).
        """
        from controller.game.table import Tick

        timing = self.watchdog
        check_s, feed_s = timing.check_every_ms / 1000, timing.feed_every_ms / 1000
        next_feed = time.monotonic() + feed_s
        notice = LockNotice(self.notifier)  # the lock or fault in force: log and STATUS
        withheld: list[str] = []
        while not self.stop_event.wait(min(check_s, max(0.0, next_feed - time.monotonic()))):
            if self.table is not None:
                self.table.submit(Tick())
            now = time.monotonic()
            if now < next_feed:
                continue
            if self.table is not None:
                notice.show(self.table.locked, self.table.faults.shows(self.table.locked))
            problems = self._health()
            if self.stop_event.is_set():
                break  # stopping: the link and threads end by design, nothing withheld
            if not problems:
                self.notifier.watchdog()
                next_feed = now + feed_s
                if withheld:
                    log.info("watchdog fed again: every thread is alive")
            elif problems != withheld:
                log.error("watchdog withheld: %s", "; ".join(problems))
            if problems:
                next_feed = now + check_s
            withheld = problems

    # -- main -----------------------------------------------------------------------
    def run(self) -> int:
        """Run until SIGTERM/SIGINT or ``rounds`` settled rounds. Returns the exit status."""
        self.open()
        if self.stop_event.is_set():  # asked during start-up (Ctrl+C): no READY, a clean stop
            log.info("stop asked during start-up: not ready")
            self.close()
            return 0
        self._spawn("watchdog", self._watchdog_loop)
        self._status_said = self._status_tail(self.table.views()[0])
        self.notifier.ready(f"table {self.config.table_id} ready{self._status_said}")
        log.info("READY: table %s, %d seats, rules %s, journal %s", self.config.table_id,
                 self.config.seats, self.config.profile.name, self.config.journal_path)
        self._spawn_after_ready()
        try:
            self._loop()
        finally:
            self.close()
        return 0

    def _spawn_after_ready(self) -> None:
        """Autoplay, the control channel and the checks beside the table, once READY."""
        from controller import environment

        if self.autoplay is not None:
            self._spawn("autoplay", self._autoplay_loop)
        if self.control_stdin:
            self._spawn("control", self._control_loop)
        if self.table.verdict.events and (self._held or not self.table.locked):
            self._spawn("journal-check", lambda: journal_watch.check_beside(
                self.table, self.config.journal_path, self.stop_event))
        self._spawn("environment-check", lambda: environment.check_beside(
            self.table, self.software, self.stop_event, self.checked))

    def _loop(self) -> None:
        """The main thread's loop: the screens' frames (or a wait), their comings and goings."""
        retry = 0.0
        watch = screens.ScreenWatch(self.screen_names)
        while not self.stop_event.is_set():
            self.heartbeats.beat("main")
            if self.app is not None:
                self.app.step()
                if self.app.quit_requested:
                    log.info("screen closed: stopping")
                    self.stop_event.set()
            else:
                self.stop_event.wait(self.watchdog.check_every_ms / 1000)
                if time.monotonic() >= retry and self.screen_names:
                    self.app, retry = screens.try_open(self), time.monotonic() + 2.0
            for record in watch.changes(self.app):  # a screen lost or back: journaled
                self.table.submit(record)
            self._say_status(self.table.views()[0])  # a screen came or went, the floor

    def close(self) -> None:
        """Stop cleanly: link first, then drain and close the table, then the screens."""
        self.stop_event.set()
        self.notifier.stopping()
        log.info("stopping")
        self.roundlog.stopping = True
        if self.link is not None:
            self.link.stop()
        for t in self._threads:
            if t.name != "control":
                t.join(2.0)
        if self.table is not None:
            from controller.journal import JournalError

            try:
                self.table.stop()
            except JournalError as exc:  # the last write or the anchor failed: say so
                log.error("journal: %s", exc)
        self.floor.stop()  # after the table: every round is in the journal
        if self.app is not None:
            self.app.close()
        log.info("stopped: %s settled this run", counted(self.roundlog.settled, "round"))
        self.notifier.close()


def run(args: argparse.Namespace) -> int:
    """The ``run`` sub-command.

    Returns:
        0 after a clean stop, 2 for a configuration that does not validate, 1 when the
        dealer screen did not open (:class:`controller.screens.ScreenError`).
    """
    tmpdir = None
    journal = args.journal
    if args.demo and journal is None and args.config is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="threecard-demo-")
        journal = str(Path(tmpdir.name) / "journal.sqlite3")
    try:
        config = _configure(args, journal)
        daemon = _daemon(args, config)
    except ConfigError as exc:
        print(f"threecard run: {exc}", file=sys.stderr)
        return 2
    if tmpdir is not None:
        daemon.key_folder = tmpdir.name  # a temporary journal's seal key: beside it
    _stop_on_signals(daemon)
    if args.demo:
        kept = ("temporary, deleted at exit; --journal PATH keeps it" if tmpdir is not None
                else "kept")
        log.info("DEMO: simulated shoe, automatic bets %s, journal %s (%s)%s. Stop with "
                 "Ctrl+C (or SIGTERM: kill %d)", daemon.autoplay, config.journal_path, kept,
                 "; headless: one line per round" if config.headless else "", os.getpid())
    try:
        return daemon.run()
    except (ConfigError, screens.ScreenError) as exc:
        print(f"threecard run: {exc}", file=sys.stderr)
        daemon.close()
        return 2 if isinstance(exc, ConfigError) else 1
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
            log.info("demo journal %s deleted (run with --journal PATH to keep one)",
                     config.journal_path)
        elif args.demo and daemon.table is not None and Path(config.journal_path).is_file():
            log.info("demo journal kept: %s (threecard recall --journal %s)",
                     config.journal_path, config.journal_path)


def _configure(args: argparse.Namespace, journal: str | None) -> TableConfig:
    """The configuration ``run`` plays by: the file, the flags, the demo's defaults."""
    demo = args.demo
    headless = True if args.headless else None
    if demo and not args.headless and not screens.has_display():
        headless = True
    shoe = args.shoe if args.shoe is not None else (DEMO_SHOE if demo else None)
    overrides = cli.run_overrides(args, shoe_url=shoe, journal_path=journal, headless=headless)
    _setup_logging(args.log_level or "info")
    config = load_config(args.config, cli.RUN_FLAGS, **overrides)
    # the demo's own shoe names its dialect: the configured shoe's is not in question
    check_shoe(config, warn_dialect=not (demo and args.shoe is None))
    cli.dealer_window(config)  # a size that does not read stops the run now
    from controller.floor_link import check_floor
    check_floor(config)  # its files before the journal opens
    _setup_logging(config.log_level)
    return config


def _daemon(args: argparse.Namespace, config: TableConfig) -> Daemon:
    """The daemon of ``run``'s flags (ConfigError: ``--bets`` or ``--supervisor-pin``)."""
    demo = args.demo
    autoplay = None
    if args.autoplay or demo:
        try:
            autoplay = autoplay_bets(config.profile, args.bets)
        except BetError as exc:  # a bet the rule profile does not take
            raise ConfigError(f"--bets: {exc}") from None
    pin = args.supervisor_pin
    if pin is not None and pin_problem(pin):
        raise ConfigError(f"--supervisor-pin: {pin_problem(pin)}")
    if demo and pin is None:
        from controller.game.auth import DEMO_PINS
        pin = DEMO_PINS["supervisor"]
    pace = args.pace_ms if args.pace_ms is not None else (
        0 if not demo else DEMO_HEADLESS_PACE_MS if config.headless else DEMO_PACE_MS)
    daemon = Daemon(config, autoplay=autoplay, rounds=args.rounds, pace_ms=pace,
                    supervisor_pin=pin, control_stdin=args.control_stdin)
    daemon.input_script = args.input_script
    if demo:
        daemon.anchor_level = logging.DEBUG
    return daemon


def _stop_on_signals(daemon: Daemon) -> None:
    """SIGTERM and SIGINT ask ``daemon`` to stop (cleanly, from its own loop)."""
    def on_signal(signum: int, _frame: Any) -> None:
        log.info("signal %s received", signal.Signals(signum).name)
        daemon.stop_event.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
