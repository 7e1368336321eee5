import pytest

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
