import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.config import ConfigError, load_config


def write(tmp_path, text):
    p = tmp_path / "table.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, key", [
    ("[table]\nseats = 12\n", "table.seats"),
    ("[table]\nsetas = 3\n", "table.setas"),
    ("[tabel]\nseats = 3\n", "tabel"),
    ("[display]\nlanguage = 'de'\n", "display.language"),
    ("[table]\nrules = 'nowhere.toml'\n", "table.rules"),
    ("[table]\nseats = '7'\n", "table.seats"),
    ("[table]\nchip_values = [100, -5]\n", "table.chip_values"),
    ("[roles]\nsupervisor = '2468'\n", "roles.supervisor"),
])
def test_bad_config_names_file_and_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(path) in str(err.value) and key in str(err.value)


def test_missing_and_garbled_files(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "none.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[table\n"))


def test_flags_override_the_file(tmp_path):
    path = write(tmp_path, "[table]\nseats = 5\nrules = 'classic'\n")
    cfg = load_config(path, seats=3, rules=None)
    assert cfg.seats == 3 and cfg.profile.name == "classic"


def test_hash_pin_command_output_is_accepted_by_the_config(tmp_path):
    import subprocess
    import sys

    from controller.game.auth import verify_pin

    p = subprocess.run([sys.executable, "-m", "controller.cli", "hash-pin"], input="8642\n",
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    digest = p.stdout.strip()
    assert verify_pin("8642", digest) and not verify_pin("8641", digest)
    cfg = load_config(write(tmp_path, f'[roles]\nsupervisor = "{digest}"\n'))
    assert cfg.roles == {"supervisor": digest}
    bad = subprocess.run([sys.executable, "-m", "controller.cli", "hash-pin"], input="12\n",
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "4 to 12 digits" in bad.stderr


def test_self_check_refuses_a_paytable_that_does_not_match_its_published_return(tmp_path):
    import subprocess
    import sys
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


@pytest.mark.parametrize("key", ["player_output", "dealer_output"])
def test_a_negative_output_is_refused_at_load(tmp_path, key):
    line = _run_config(tmp_path, f"[display]\n{key} = -1\n")
    assert line == (f"threecard run: {tmp_path / 'table.toml'}: display.{key}: must be 0 or "
                    "more (outputs are numbered from 0), got -1")


@pytest.mark.parametrize("digest, why", [
    ("scrypt$a$b$c$d$e", "n, r and p must be whole numbers"),
    ("scrypt$16384$8$1$zz$" + "00" * 32, "salt and hash must be hexadecimal"),
    ("scrypt$16384$8$1$" + "00" * 16 + "$" + "00" * 31, "the hash 32 bytes"),
    ("scrypt$16383$8$1$" + "00" * 16 + "$" + "00" * 32, "n a power of two"),
    ("scrypt$1048576$8$1$" + "00" * 16 + "$" + "00" * 32, "at most 32 MiB"),
])
def test_a_pin_hash_that_no_pin_could_match_is_refused_at_load(tmp_path, digest, why):
    """Passed at load, such a hash made every PIN a "wrong PIN" at the table."""
    line = _run_config(tmp_path, f'[roles]\nsupervisor = "{digest}"\n')
    assert line.startswith(f"threecard run: {tmp_path / 'table.toml'}: roles.supervisor: "
                           "must be a PIN hash from `threecard hash-pin`")
    assert why in line


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
    assert line.startswith(f"threecard run: {tmp_path / 'table.toml'}: shoe.url: ")
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
