"""The one configuration class as the game reads it: the journal form (version 2, and
version 1's names read), settings changed between rounds, and equality of the game's
settings only."""

from __future__ import annotations

import pytest

from controller.game.auth import demo_pin_hashes
from controller.game.config import (
    CHANGEABLE,
    CONFIG_VERSION,
    ConfigError,
    TableConfig,
    changeable_setting,
    config_version,
)
from controller.game.inputs import ConfigChange

# a startup body's configuration as the table journaled it before (version 1)
VERSION_1 = {"table_id": "table-1", "rules": "classic", "seats": 5,
             "deal_pattern": "by_hand", "burn_cards": 1, "exposed_card_policy": "void",
             "pin_hashes": {}, "max_pin_failures": 4, "lockout_seconds": 120,
             "recall_depth": 12, "deck_per_round": True, "snapshot_every": 200,
             "chip_values": [100, 500]}


def test_the_journal_form_is_version_2_with_the_game_settings_only():
    cfg = TableConfig(seats=4, shoe_url="socket://shoe:4000", headless=True,
                      pin_hashes=demo_pin_hashes())
    d = cfg.to_dict()
    assert d["config_version"] == CONFIG_VERSION == 2 and config_version(d) == 2
    assert {"shoe_url", "headless", "journal_path", "source", "dialect"}.isdisjoint(d)
    assert TableConfig.from_dict(d) == cfg
    assert TableConfig.from_dict(d).to_dict() == d


def test_a_journal_form_written_before_is_read_with_its_old_names():
    cfg = TableConfig.from_dict(VERSION_1)
    assert config_version(VERSION_1) == 1
    assert (cfg.exposed_card, cfg.lockout_after, cfg.chip_values) == ("void", 4, (100, 500))
    assert cfg == TableConfig(table_id="table-1", rules="classic", seats=5,
                              deal_pattern="by_hand", burn_cards=1, exposed_card="void",
                              lockout_after=4, lockout_seconds=120, recall_depth=12,
                              snapshot_every=200, chip_values=(100, 500))
    with pytest.raises(TypeError, match="not a game setting: shoe_url"):
        TableConfig.from_dict({**VERSION_1, "shoe_url": "sim://"})


def test_equality_is_the_game_settings():
    assert TableConfig(shoe_url="sim://", language="fr", source="a.toml") == TableConfig()
    assert TableConfig(burn_cards=1) != TableConfig()


@pytest.mark.parametrize(("key", "value", "reason"), [
    ("burn_cards", 6, "bad value for burn_cards: must be a whole number 0 to 5, got 6"),
    ("burn_cards", True, "bad value for burn_cards: must be a whole number 0 to 5, got True"),
    ("lockout_seconds", 0, "bad value for lockout_seconds: must be a whole number 1 to 86400"),
    ("lockout_seconds", 86_401, "bad value for lockout_seconds: must be a whole number 1 to"),
    ("lockout_after", 0, "bad value for lockout_after: must be a whole number 1 to 100"),
    ("max_pin_failures", 0, "bad value for lockout_after: must be a whole number 1 to 100"),
    ("exposed_card", "keep", "bad value for exposed_card: must be one of burn, void"),
    ("rules", "nowhere.toml", "bad value for rules: nowhere.toml: no such rule profile"),
    ("seats", 3, "unknown setting 'seats' (known: deal_pattern, burn_cards, exposed_card"),
    (["burn_cards"], 1, "unknown setting ['burn_cards']"),
])
def test_a_setting_changed_between_rounds_is_checked_against_its_bound(key, value, reason):
    with pytest.raises(ConfigError) as err:
        TableConfig().changed(key, value)
    assert str(err.value).startswith(reason)


@pytest.mark.parametrize("value", [10**400, 10**5000, [10**5000], "x" * 10_000],
                         ids=["400 digits", "5000 digits", "in a list", "long text"])
def test_a_huge_value_is_named_short(value):
    with pytest.raises(ConfigError) as err:
        TableConfig().changed("lockout_seconds", value)
    assert len(str(err.value)) < 120 and "\n" not in str(err.value)


def test_every_changeable_setting_takes_a_good_value_under_its_name_then_and_now():
    good = {"deal_pattern": "by_hand", "burn_cards": 2, "exposed_card": "void",
            "lockout_after": 3, "lockout_seconds": 60, "rules": "classic",
            "bet_entry": "outcomes"}
    assert set(good) == set(CHANGEABLE)
    for key, value in good.items():
        assert getattr(TableConfig().changed(key, value), key) == value
    assert TableConfig().changed("exposed_card_policy", "void").exposed_card == "void"
    assert changeable_setting("max_pin_failures") == "lockout_after"


def test_the_table_takes_a_setting_under_its_name_then_and_now(shift):
    shift.ok(ConfigChange(key="exposed_card", value="void", pin=shift.SUP))
    assert shift.game.config.exposed_card == "void"
    shift.ok(ConfigChange(key="max_pin_failures", value=7, pin=shift.SUP))
    assert shift.game.config.lockout_after == 7
    assert "bad value for lockout_seconds" in shift.rejected(
        ConfigChange(key="lockout_seconds", value=0, pin=shift.SUP))
