"""``threecard run --input-script``: by keys, the outline never jumps back to an earlier seat.

The real daemon (headless, SDL's dummy driver) plays a 3-seat round from a script of keys
on a simulated shoe: ``2 F F`` folds seat 2, then the next seat to its right still to
decide (seat 3), never seat 1, whose K-9-4 the strategy plays.
"""

from __future__ import annotations


def test_two_folds_by_keys_fold_seats_2_and_3_not_1(daemons, table_config, tmp_path,
                                                    scripted_shoe, journal_events):
    table_config.write_text(table_config.read_text().replace("seats = 2", "seats = 3"))
    script = tmp_path / "folds.jsonl"
    script.write_text("\n".join([
        '{"keys": "1 F1 A"}', '{"keys": "2 A"}', '{"keys": "3 A"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}',
        "# seat 2 folds, then F again: the outline stood on seat 3, not seat 1",
        '{"keys": "2 F F"}', '{"keys": "1 Y"}', '{"key": "R"}', '{"key": "S"}']) + "\n")
    shoe = scripted_shoe("Kh 9s 4d 2c 5d 8h 3c 6d Th Qs Jd 2h")  # seats 1-3, dealer
    journal = tmp_path / "journal.sqlite3"
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--input-script", str(script)])
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(12)
    d.wait_for(r"input script .*folds.jsonl: done, 9 steps played", timeout=120)
    assert d.stop() == 0
    decided = [(b["seat"], b["decision"]) for k, a, b in journal_events(journal)
               if k == "decide"]
    assert decided == [(2, "fold"), (3, "fold"), (1, "play")]
    assert [k for k, a, _ in journal_events(journal) if a == "dealer"][-2:] == ["reveal",
                                                                                "settle"]
