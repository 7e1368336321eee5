"""``threecard floor web`` rides out a PostgreSQL store that goes away: the connection
the server closed is opened again on the next request, 503 and one log line while the
database refuses connections, 200 as soon as it takes them again; pit logins, wrong PINs
and lockouts are logged (the address, never the PIN); a recorder that loses the store
says it stops, not that it reconnects.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request

import pytest

from controller.game.auth import hash_pin
from floor.store import Store

TOKEN = "metrics-token-0123456789"
PIN = "902817"


def _get(url: str, headers: dict | None = None, data: bytes | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _kick(admin, dbname: str) -> None:
    """End every connection to ``dbname`` (what a restart of the server does to them)."""
    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                  "AND pid <> pg_backend_pid()", (dbname,))


@pytest.fixture
def web_on_pg(floor, pg_server):
    import psycopg

    url = pg_server.database()
    Store(url).close()  # the tables a recorder makes
    config = floor.folder / "floor.toml"
    config.write_text(f'[roles]\npit = "{hash_pin(PIN)}"\nlockout_after = 2\n')
    token = floor.secret("metrics.token", TOKEN)
    port = floor.free_port()
    web = floor.run("web", "floor", "web", "--store", url, "--config", str(config),
                    "--listen", f"127.0.0.1:{port}", "--metrics-token-file", str(token))
    web.wait_for(r"pit page on http://127\.0\.0\.1", 30)
    admin = psycopg.connect(pg_server.url("postgres"), autocommit=True)
    try:
        yield web, f"http://127.0.0.1:{port}", url.rsplit("/", 1)[1], admin
    finally:
        admin.execute(f"ALTER DATABASE {url.rsplit('/', 1)[1]} ALLOW_CONNECTIONS true")
        admin.close()


def test_the_pit_page_answers_again_once_the_store_is_back(web_on_pg):
    web, base, dbname, admin = web_on_pg
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert _get(f"{base}/metrics", auth)[0] == 200
    _kick(admin, dbname)  # the server restarted: the connection is closed
    assert _get(f"{base}/metrics", auth)[0] == 200
    admin.execute(f"ALTER DATABASE {dbname} ALLOW_CONNECTIONS false")
    _kick(admin, dbname)  # and it takes no connection for a while
    for _ in range(2):
        status, body = _get(f"{base}/metrics", auth)
        assert status == 503 and body.count("\n") == 1 and "cannot be read now" in body
    admin.execute(f"ALTER DATABASE {dbname} ALLOW_CONNECTIONS true")
    assert _get(f"{base}/metrics", auth)[0] == 200
    web.wait_for("can be read again")
    log = web.text()
    assert log.count("cannot be read") == 1, log  # once as the outage starts
    assert "Traceback" not in log, log


def test_pit_logins_wrong_pins_and_lockouts_are_logged(web_on_pg):
    web, base, _dbname, _admin = web_on_pg

    def login(pin: str) -> int:
        return _get(f"{base}/login", data=urllib.parse.urlencode({"pin": pin}).encode())[0]

    assert login(PIN) == 200  # the pit page, after the redirect
    web.wait_for(r"pit login from 127\.0\.0\.1$")
    assert login("0000") == 401
    web.wait_for(r"wrong pit PIN from 127\.0\.0\.1$")
    assert login("1111") == 401
    web.wait_for(r"wrong pit PIN from 127\.0\.0\.1; PIN entry locked for 300 s$")
    assert login(PIN) == 401
    web.wait_for(r"pit login from 127\.0\.0\.1 refused: PIN entry locked \(\d+ s left\)$")
    log = web.text().replace(base, "")  # its port may hold the digits
    assert all(pin not in log for pin in (PIN, "0000", "1111")), log


def test_a_recorder_losing_its_store_says_it_stops_not_that_it_reconnects(floor, pg_server):
    import psycopg

    url = pg_server.database()
    dbname = url.rsplit("/", 1)[1]
    recorder = floor.recorder(floor.broker().start(), url)
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {dbname} ALLOW_CONNECTIONS false")
        try:
            _kick(admin, dbname)
            recorder.wait_for(r"recorder stopped: the store \S+ cannot be read")
            assert recorder.proc.wait(30) == 1
        finally:
            admin.execute(f"ALTER DATABASE {dbname} ALLOW_CONNECTIONS true")
    assert "reconnecting" not in recorder.text(), recorder.text()
