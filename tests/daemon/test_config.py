"""The table's configuration file: every key known, every bound stated once, one-line
errors naming the file and the key, exit status 2 for a bad file."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.config import (
    FILE_KEYS,
    MAX_AMOUNT,
    MAX_SEATS,
    ROLES,
    ConfigError,
    TableConfig,
    load_config,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "systemd" / "table.toml.example"


def write(tmp_path, text):
    p = tmp_path / "table.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, key", [
    ("[table]\nseats = 12\n", "[table] seats: must be a whole number 1 to 7, got 12"),
    ("[table]\nseats = 0\n", "[table] seats: must be a whole number 1 to 7, got 0"),
    ("[table]\nsetas = 3\n", "[table] setas: unknown key"),
    ("[tabel]\nseats = 3\n", "[tabel]: unknown section"),
    ("table = 3\n", "[table]: must be a table of keys"),
    ("[display]\nlanguage = 'de'\n", "[display] language: must be one of en, fr, uk"),
    ("[table]\nrules = 'nowhere.toml'\n", "[table] rules: nowhere.toml: no such rule profile"),
    ("[table]\nseats = '7'\n", "[table] seats: must be a whole number 1 to 7, got '7'"),
    ("[table]\nseats = true\n", "[table] seats: must be a whole number 1 to 7, got True"),
    ("[table]\nchip_values = [100, -5]\n", "[table] chip_values: each chip value must be"),
    ("[table]\nchip_values = [100, 1_000_000_001]\n", "[table] chip_values: each chip"),
    ("[table]\nchip_values = []\n", "[table] chip_values: must be a list of 1 to 8"),
    ("[table]\nburn_cards = 6\n", "[table] burn_cards: must be a whole number 0 to 5"),
    ("[table]\nid = ''\n", "[table] id: must be 1 to 32 characters"),
    ("[table]\nid = 'TCP 01'\n", "[table] id: must be 1 to 32 characters"),
    ("[table]\nid = 'СТІЛ-1'\n", "[table] id: must be 1 to 32 characters"),
    (f"[table]\nid = '{'T' * 33}'\n", "[table] id: must be 1 to 32 characters"),
    ("[shoe]\nsilent_after_ms = 499\n", "[shoe] silent_after_ms: must be a whole number 500 "
     "to 60000, got 499"),
    ("[shoe]\nsilent_after_ms = 60001\n", "[shoe] silent_after_ms: must be a whole number"),
    ("[roles]\nlockout_seconds = 0\n", "[roles] lockout_seconds: must be a whole number 1 to "
     "86400, got 0"),
    ("[roles]\nlockout_seconds = 86401\n", "[roles] lockout_seconds: must be a whole number"),
    ("[roles]\nlockout_after = 0\n", "[roles] lockout_after: must be a whole number 1 to"),
    ("[display]\ndealer_output = -1\n", "[display] dealer_output: must be a whole number"),
    ("[display]\nfullscreen = 1\n", "[display] fullscreen: must be true or false, got 1"),
    ("[roles]\nsupervisor = '2468'\n", "[roles] supervisor: must be a PIN hash"),
    ("[roles]\ndealer = '1111'\n", "[roles] dealer: must be a PIN hash"),
    ("[roles]\nboss = 'scrypt$1$2$3$4$5'\n", "[roles] boss: unknown key"),
])
def test_bad_config_names_file_and_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: {key}"), str(err.value)
    assert "\n" not in str(err.value)


def test_an_unknown_key_is_named_with_its_file(tmp_path, monkeypatch):
    """The example of the report: a misspelt key in table.toml."""
    monkeypatch.chdir(tmp_path)
    Path("table.toml").write_text("[table]\nseatz = 3\n")
    with pytest.raises(ConfigError) as err:
        load_config("table.toml")
    assert str(err.value) == ("table.toml: [table] seatz: unknown key (known: id, seats, "
                              "rules, deal_pattern, burn_cards, exposed_card, chip_values, "
                              "currency, bet_entry)")


def test_the_bounds_themselves_are_accepted(tmp_path):
    path = write(tmp_path, f"""
[table]
id = "{'A-z_9' * 6}Zz"
seats = {MAX_SEATS}
burn_cards = 5
chip_values = [1, {MAX_AMOUNT}]
[shoe]
silent_after_ms = 500
[roles]
lockout_after = 1
lockout_seconds = 86400
""")
    cfg = load_config(path)
    assert len(cfg.table_id) == 32 and cfg.chip_values == (1, 10**9)
    assert cfg.silent_after_ms == 500 and cfg.lockout_seconds == 86_400
    path.write_text("[table]\nseats = 1\n[shoe]\nsilent_after_ms = 60000\n"
                    "[roles]\nlockout_seconds = 1\n")
    cfg = load_config(path)
    assert (cfg.seats, cfg.silent_after_ms, cfg.lockout_seconds) == (1, 60_000, 1)


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "table.toml"
    path.write_bytes("\ufeff[table]\r\nid = \"TCP-02\"\r\nseats = 4\r\n".encode())
    cfg = load_config(path)
    assert (cfg.table_id, cfg.seats) == ("TCP-02", 4)


def test_a_file_that_is_not_utf8_says_so(tmp_path):
    path = tmp_path / "table.toml"
    path.write_bytes("[table]\nid = \"TCP-02\"\n".encode("utf-16"))
    with pytest.raises(ConfigError, match=r"table.toml: not UTF-8 text .*save it as UTF-8"):
        load_config(path)


def test_missing_and_garbled_files(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "none.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[table\n"))


BAD_FILES = {
    "unknown key": (b"[table]\nseatz = 3\n", "table.toml: [table] seatz: unknown key"),
    "bound": (b"[shoe]\nsilent_after_ms = 100\n", "table.toml: [shoe] silent_after_ms: "),
    "not TOML": (b"[table\n", "table.toml: not valid TOML: "),
    "not UTF-8": (b"[table]\nid = \"\xff\"\n", "table.toml: not UTF-8 text"),
    "key with a line break": (b'[table]\n"se\\nats" = 3\n',
                              "table.toml: [table] 'se\\nats': unknown key"),
    "huge number": (b"[table]\nseats = " + b"9" * 400 + b"\n",
                    "table.toml: [table] seats: must be a whole number 1 to 7, got a number"),
    "number past reading": (b"[table]\nseats = " + b"9" * 5000 + b"\n",
                            "table.toml: not valid TOML: Exceeds the limit"),
    "dealer window size": (b'[display]\ndealer_size = "800 by 480"\n',
                           "table.toml: [display] dealer_size: size must be WIDTHxHEIGHT, "
                           "got '800 by 480'"),
    "dealer window under 800x480": (b'[display]\ndealer_size = "640x480"\n',
                                    "table.toml: [display] dealer_size: 640x480 is smaller "
                                    "than the dealer screen can be drawn on: at least 800x480"),
    "upright dealer window under 480x800": (b'[display]\ndealer_size = "460x800"\n',
                                            "table.toml: [display] dealer_size: 460x800 is "
                                            "smaller than the dealer screen can be drawn on"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_file_stops_run_with_status_2_and_one_line(tmp_path, name):
    body, first = BAD_FILES[name]
    (tmp_path / "table.toml").write_bytes(body)
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--config", "table.toml"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("threecard run: " + first), p.stderr
    assert len(lines[0]) < 300
    assert not (tmp_path / "journal.sqlite3").exists()        # nothing started (R3)


def test_the_example_file_knows_every_key_and_loads():
    text = EXAMPLE.read_text(encoding="utf-8")
    assert load_config(EXAMPLE).table_id == "TCP-01"
    # every key of the file is shown in the example, set or commented out, and no other
    shown = tomllib.loads(re.sub(r"(?m)^# (\w+ = )", r"\1", text))
    for section, keys in FILE_KEYS.items():
        want = set(keys) | (set(ROLES) if section == "roles" else set())
        assert set(shown.get(section, {})) == want, section
    assert set(shown) == set(FILE_KEYS)


def test_every_game_setting_has_one_default_and_the_file_keys_name_fields():
    cfg = TableConfig()
    assert cfg.validate() is cfg
    names = {n for keys in FILE_KEYS.values() for n in keys.values()}
    assert names <= set(TableConfig.__dataclass_fields__)


def test_flags_override_the_file(tmp_path):
    path = write(tmp_path, "[table]\nseats = 5\nrules = 'classic'\n")
    cfg = load_config(path, seats=3, rules=None)
    assert cfg.seats == 3 and cfg.profile.name == "classic"


def test_hash_pin_command_output_is_accepted_by_the_config(tmp_path):
    from controller.game.auth import verify_pin

    p = subprocess.run([sys.executable, "-m", "controller.cli", "hash-pin"], input="8642\n",
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    digest = p.stdout.strip()
    assert verify_pin("8642", digest) and not verify_pin("8641", digest)
    cfg = load_config(write(tmp_path, f'[roles]\nsupervisor = "{digest}"\n'))
    assert cfg.pin_hashes == {"supervisor": digest}
    for pin in ("12", "1234567890123", "12a4"):
        bad = subprocess.run([sys.executable, "-m", "controller.cli", "hash-pin"],
                             input=pin + "\n", capture_output=True, text=True, timeout=60)
        assert bad.returncode == 1 and "4 to 12 digits" in bad.stderr
    ok = subprocess.run([sys.executable, "-m", "controller.cli", "hash-pin"],
                        input="123456789012\n", capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and verify_pin("123456789012", ok.stdout.strip())


def test_a_dealer_pin_is_a_role_of_the_configuration(tmp_path):
    from controller.game.auth import hash_pin

    digest = hash_pin("5555")
    cfg = load_config(write(tmp_path, f'[roles]\ndealer = "{digest}"\n'))
    assert cfg.pin_hashes == {"dealer": digest}


def test_self_check_refuses_a_paytable_that_does_not_match_its_published_return(tmp_path):
    from importlib import resources

    body = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    edited = tmp_path / "edited.toml"
    edited.write_text(body.replace("straight = 5\n", "straight = 4\n"))  # Pair Plus pays less
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--rules", str(edited), "--journal", str(tmp_path / "j.sqlite3")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "published_rtp.pair_plus" in p.stderr and "95.51" in p.stderr
    assert not (tmp_path / "j.sqlite3").exists()            # nothing started (R3)


def _run_config(tmp_path, text, shoe=("--shoe", "sim://")):
    """``threecard run`` on a configuration that must be refused (with nothing started)."""
    import os
    import subprocess
    import sys

    path = write(tmp_path, text)
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(path),
                        "--headless", *shoe, "--journal",
                        str(tmp_path / "j.sqlite3")], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path, env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert not (tmp_path / "j.sqlite3").exists()                      # nothing started
    return p.stderr.strip()


def test_a_chip_value_given_twice_is_refused_at_load(tmp_path):
    """Two buttons for one chip: a list of chips that repeats one is a typing error."""
    line = _run_config(tmp_path, "[table]\nchip_values = [100, 500, 100]\n")
    assert line == (f"threecard run: {tmp_path / 'table.toml'}: [table] chip_values: must not "
                    "repeat a chip value, got [100, 500, 100]")


@pytest.mark.parametrize("outputs", ["dealer_output = 1\nplayer_output = 1",
                                     "player_output = 0"])
def test_both_screens_on_one_output_are_refused_at_load(tmp_path, outputs):
    line = _run_config(tmp_path, f"[display]\n{outputs}\n")
    n = 1 if "dealer_output = 1" in outputs else 0
    assert line == (f"threecard run: {tmp_path / 'table.toml'}: [display] player_output: must "
                    f"differ from dealer_output ({n}): each screen needs a display of its own")


def test_one_output_is_taken_when_only_one_screen_is_shown(tmp_path):
    cfg = load_config(write(tmp_path, "[display]\nplayer = false\nplayer_output = 0\n"))
    assert cfg.dealer_output == cfg.player_output == 0


@pytest.mark.parametrize("key", ["player_output", "dealer_output"])
def test_a_negative_output_is_refused_at_load(tmp_path, key):
    line = _run_config(tmp_path, f"[display]\n{key} = -1\n")
    assert line == (f"threecard run: {tmp_path / 'table.toml'}: [display] {key}: must be a "
                    "whole number 0 to 15, got -1")


@pytest.mark.parametrize("digest, why", [
    ("scrypt$a$b$c$d$e", "n, r and p must be whole numbers"),
    ("scrypt$16384$8$1$zz$" + "00" * 32, "salt and hash must be hexadecimal"),
    ("scrypt$16384$8$1$" + "00" * 16 + "$" + "00" * 31, "the hash 32 bytes"),
    ("scrypt$16383$8$1$" + "00" * 16 + "$" + "00" * 32, "n a power of two"),
    ("scrypt$1048576$8$1$" + "00" * 16 + "$" + "00" * 32, "n a power of two 1024 to 65536"),
])
def test_a_pin_hash_that_no_pin_could_match_is_refused_at_load(tmp_path, digest, why):
    """Passed at load, such a hash made every PIN a "wrong PIN" at the table."""
    line = _run_config(tmp_path, f'[roles]\nsupervisor = "{digest}"\n')
    assert line.startswith(f"threecard run: {tmp_path / 'table.toml'}: [roles] supervisor: "
                           "must be a PIN hash from `threecard hash-pin`")
    assert why in line


@pytest.mark.parametrize("nrp", ["16384$8$64", "16384$8$5", "16384$32$1", "65536$16$1",
                                 "512$8$1", "16384$8$0"])
def test_a_pin_hash_whose_check_would_take_seconds_is_refused_at_load(tmp_path, nrp):
    """``p = 64`` made every PIN check take 8 s: n, r and p are bounded, and their work."""
    digest = f"scrypt${nrp}$" + "00" * 16 + "$" + "00" * 32
    line = _run_config(tmp_path, f'[roles]\nsupervisor = "{digest}"\n')
    n, r, p = nrp.split("$")
    assert line == (f"threecard run: {tmp_path / 'table.toml'}: [roles] supervisor: must be a "
                    "PIN hash from `threecard hash-pin` (scrypt$...), never a PIN: scrypt "
                    f"parameters n={n} r={r} p={p} cannot be used (n a power of two 1024 to "
                    "65536, r 1 to 16, p 1 to 4, n*r*p at most 262144)")


def test_the_costliest_pin_hash_taken_is_checked_in_well_under_a_second():
    import time

    from controller.game.auth import parse_pin_hash, verify_pin

    stored = "scrypt$16384$8$2$" + "00" * 16 + "$" + "00" * 32   # n*r*p at the bound
    assert parse_pin_hash(stored)[:3] == (16384, 8, 2)
    t0 = time.perf_counter()
    assert not verify_pin("2468", stored)
    assert time.perf_counter() - t0 < 1.0


@settings(max_examples=10, deadline=None)
@given(st.from_regex(r"[0-9]{4,12}", fullmatch=True))
def test_every_hash_pin_output_passes_the_check_at_load(pin):
    from controller.game.auth import hash_pin, parse_pin_hash, verify_pin

    stored = hash_pin(pin)
    n, r, p, salt, digest = parse_pin_hash(stored)
    assert (n, r, p, len(salt), len(digest)) == (2**14, 8, 1, 16, 32)
    assert verify_pin(pin, stored)


@pytest.mark.parametrize("url", ["bogus://x", "sim://?bogus=1", "sim://?seed=x",
                                 "serial://zzzz:7523", "usb://1209"])
def test_a_shoe_url_is_checked_before_the_journal_opens(tmp_path, url):
    """Refused with nothing made: no journal, no lock file, no startup event."""
    line = _run_config(tmp_path, f'[shoe]\nurl = "{url}"\n', shoe=())
    assert line.startswith(f"threecard run: {tmp_path / 'table.toml'}: [shoe] url: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def test_a_url_dialect_that_overrides_the_configured_one_is_warned_about(tmp_path, daemons):
    path = write(tmp_path, '[shoe]\nurl = "sim://?dialect=beetek"\ndialect = "native"\n'
                 f'[journal]\npath = "{tmp_path / "j.sqlite3"}"\n')
    d = daemons(["--config", str(path), "--headless"])
    d.wait_for(r"WARNING +the shoe URL sim://\?dialect=beetek names dialect beetek: it wins "
               r"over shoe.dialect \(or --dialect\) native$")
    d.wait_for(r"shoe link started: sim://\?dialect=beetek \(beetek dialect\)")
    assert d.stop() == 0


@pytest.mark.parametrize("shoe, dialect", [("sim://?dialect=native", "native"),
                                           ("sim://?dialect=native", None),
                                           ("sim://", "native")])
def test_no_dialect_warning_when_nothing_is_overridden(tmp_path, daemons, shoe, dialect):
    text = f'[shoe]\nurl = "{shoe}"\n' + (f'dialect = "{dialect}"\n' if dialect else "")
    path = write(tmp_path, text + f'[journal]\npath = "{tmp_path / "j.sqlite3"}"\n')
    d = daemons(["--config", str(path), "--headless"])
    d.wait_for(r"READY: ")
    assert d.stop() == 0
    assert not any("names dialect" in line for line in d.lines)


def test_a_demo_whose_journal_cannot_open_does_not_say_it_kept_one(tmp_path, daemons):
    """The shipped configuration's journal is in /var/lib/threecard-table: not here."""
    missing = tmp_path / "no" / "such" / "journal.sqlite3"
    path = write(tmp_path, f'[journal]\npath = "{missing}"\n[shoe]\ndialect = "beetek"\n')
    d = daemons(["--demo", "--headless", "--config", str(path)])
    assert d.proc.wait(60) == 2
    d.stop()
    log = "\n".join(d.lines)
    assert "cannot open the journal" in log
    assert "journal kept" not in log and not missing.exists()
    assert "names dialect" not in log          # the demo's shoe brings its own dialect


def test_a_bad_dealer_size_flag_stops_run_before_anything_starts(tmp_path):
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--dealer-size", "800x48000"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert "argument --dealer-size: size out of range: '800x48000'" in p.stderr
    assert not (tmp_path / "journal.sqlite3").exists()


@pytest.mark.parametrize("first, second", [("dealer", "supervisor"),
                                           ("supervisor", "technician"),
                                           ("dealer", "technician")])
def test_two_roles_sharing_one_pin_hash_are_refused_at_load(tmp_path, first, second):
    """One PIN would be two roles: the table could tell them apart only by order."""
    from controller.game.auth import hash_pin

    digest = hash_pin("5555")
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, f'[roles]\n{first} = "{digest}"\n{second} = "{digest}"\n'))
    assert str(caught.value) == f"{tmp_path / 'table.toml'}: [roles] {second}: same PIN as {first}"
    other = hash_pin("6666")  # each role its own PIN: taken
    cfg = load_config(write(tmp_path, f'[roles]\n{first} = "{digest}"\n{second} = "{other}"\n'))
    assert cfg.pin_hashes == {first: digest, second: other}


def test_a_dealer_size_under_800x480_stops_run_with_one_line(tmp_path):
    """The dealer screen's touch targets and text are sized for a 7-inch 800x480 panel:
    a smaller window is refused before anything starts, in one line."""
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--dealer-size", "640x400"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "threecard run: --dealer-size: 640x400 is smaller than the dealer screen "
        "can be drawn on: at least 800x480 (480x800 upright)"]
    assert not (tmp_path / "journal.sqlite3").exists()


def test_every_key_refusing_a_value_of_another_type_is_named_in_one_line(tmp_path):
    """msgspec's error path ($.table.seats) is worded as the file's section and key."""
    for section, keys in FILE_KEYS.items():
        for key in [*keys, *(ROLES if section == "roles" else ())]:
            path = write(tmp_path, f"[{section}]\n{key} = {{ x = 1 }}\n")
            with pytest.raises(ConfigError) as err:
                load_config(path)
            assert str(err.value).startswith(f"{path}: [{section}] {key}: "), str(err.value)
            assert "\n" not in str(err.value) and "at `$" not in str(err.value)
