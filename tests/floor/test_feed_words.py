"""What the table's feed says, in process (no broker needed): its stop lines, a TLS URL
against a plain port, and credentials files others can read."""

from __future__ import annotations

import dataclasses
import logging
import re
import shlex
import socket
import sqlite3
import threading
from pathlib import Path

import pytest
from floor_feed import dealt, feed_messages
from polling import until

from floor.mqtt import FloorSettings
from floor.publisher import FloorPublisher

TABLE = "TCP-W"


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    """A journal of 2 rounds at 2 seats."""
    return dealt(tmp_path_factory.mktemp("words") / "journal.sqlite3", TABLE, 2, 3)


def _lines(caplog, level: int = logging.INFO) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "threecard.floor" and r.levelno >= level]


def _feed(settings: FloorSettings, journal: Path, caplog, resume: str = "") -> FloorPublisher:
    caplog.set_level(logging.INFO, "threecard.floor")
    feed = FloorPublisher(settings, str(journal), TABLE, drain_s=0, resume=resume).start()
    assert until(lambda: any("unreachable" in line for line in _lines(caplog)), 10)
    return feed


def test_the_stop_lines_count_the_same_events_done_and_left(journal, caplog):
    # nothing listens on the port: the broker is never reached, nothing acknowledged
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    feed = _feed(FloorSettings(f"mqtt://127.0.0.1:{port}"), journal, caplog,
                 resume="threecard run --journal j")
    assert until(lambda: feed.follower is not None and feed.follower.position > 0, 10)
    feed.stop(0)
    with sqlite3.connect(journal) as db:
        (head,) = db.execute("SELECT max(seq) FROM events").fetchone()
    # the events before the first that makes a message have nothing to send: done
    done = min(m.seq for m in feed_messages(journal, TABLE)) - 1
    assert 0 < done < head
    text = "\n".join(_lines(caplog))
    assert (f"feed stopped: {done} of the journal's {head} event(s) done (acknowledged by "
            f"the broker, or nothing to send), {head - done} left") in text, text
    assert "0 message(s) acknowledged" in text, text
    assert (f"did not acknowledge the last {head - done} journal event(s) ({done + 1} to "
            f"{head}); the journal keeps them: `threecard run --journal j` sends them") in text


def _resetting_server() -> tuple[int, threading.Event]:
    """A port that takes a connection, reads its first bytes and resets it (as a plain
    MQTT port does with a TLS handshake); the event stops it."""
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        with srv:
            while not done.is_set():
                try:
                    conn, _ = srv.accept()
                except TimeoutError:
                    continue
                with conn:
                    conn.settimeout(2)
                    try:
                        conn.recv(1024)
                    except OSError:
                        pass
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    b"\x01\x00\x00\x00\x00\x00\x00\x00")

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], done


def test_a_tls_url_against_a_plain_port_says_the_port_may_not_speak_tls(journal, caplog):
    port, done = _resetting_server()
    try:
        feed = _feed(FloorSettings(f"mqtts://127.0.0.1:{port}"), journal, caplog)
        feed.stop(0)
    finally:
        done.set()
    (line,) = [x for x in _lines(caplog, logging.WARNING) if "unreachable" in x]
    assert re.search(rf"unreachable \(.+: does port {port} speak TLS\? A plain MQTT port "
                     r"\(mqtt://, usually 1883\) closes a TLS connection so", line), line


def _run_config(argv: list[str]):
    """The configuration ``threecard run ARGV`` starts with (its parser, its overrides)."""
    from controller import cli
    from controller.game.config import load_config

    args = cli.build_parser(["run", *argv]).parse_args(["run", *argv])
    return load_config(args.config, cli.RUN_FLAGS, **cli.run_overrides(args))


@pytest.mark.parametrize("given", [
    ["--shoe", "sim://?dialect=native", "--headless", "--lang", "fr", "--dealer-size",
     "800x480", "--log-level", "debug", "--table-id", "TCP-01", "--seats", "7"],
    ["--config", str(Path(__file__).parents[2] / "systemd" / "table.toml.example"),
     "--headless", "--seats", "3"],
], ids=["flags", "shipped-config"])
def test_the_resume_command_starts_the_table_as_it_ran(given, tmp_path):
    from controller.floor_link import resume_command

    journal = str(tmp_path / "m8c.sqlite3")
    ran = _run_config([*given, "--journal", journal, "--floor", "mqtt://floor.example:1883"])
    printed = resume_command("run", ran, journal)
    words = shlex.split(printed)
    assert words[:2] == ["threecard", "run"], printed
    again = _run_config(words[2:])
    # every setting, the wiring (the shoe, the screens) too, and the file they come from
    settings = [f.name for f in dataclasses.fields(ran) if f.name not in ("given", "flags")]
    assert {n: getattr(again, n) for n in settings} == {n: getattr(ran, n) for n in settings}, \
        printed


def test_a_password_file_or_key_others_can_read_is_warned_of_once(journal, tmp_path, caplog):
    caplog.set_level(logging.INFO, "threecard.floor")
    secret = tmp_path / "TCP-W.pw"
    secret.write_text("secret\n")
    secret.chmod(0o644)
    settings = FloorSettings("mqtt://127.0.0.1:1", password_file=str(secret))
    FloorPublisher(settings, str(journal), TABLE)  # the table's feed, as it starts
    assert _lines(caplog, logging.WARNING) == [
        f"floor: [floor] password_file {secret} is mode 0644: group or others can read it; "
        f"make it 0600 (chmod 600 {secret})"]
    caplog.clear()
    secret.chmod(0o600)  # as README.md says: nothing to say
    FloorPublisher(settings, str(journal), TABLE)
    assert _lines(caplog, logging.WARNING) == []
    # the recorder names its options; a client key readable by its group is said too
    key = tmp_path / "client.key"
    key.write_text("not read here\n")
    key.chmod(0o640)
    FloorSettings("mqtts://127.0.0.1:1", client_key=str(key), password_file=str(secret)) \
        .warn_open_secrets(logging.getLogger("threecard.floor"), as_option=True)
    assert _lines(caplog, logging.WARNING) == [
        f"floor: --client-key {key} is mode 0640: group or others can read it; make it 0600 "
        f"(chmod 600 {key})"]
