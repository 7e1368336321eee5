"""The screenshot scenarios are the real table's views, replayed from a scripted shift."""

import ast
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.game import views
from controller.game.replay import views_at
from controller.game.script import load_script, run_script
from display import scenarios
from display.scenarios import SCENARIOS, build

HERE = Path(__file__).resolve()
SCRIPT = HERE.parents[2] / "display" / "scenes" / "shift.jsonl"
VIEW_CLASSES = {name for name, obj in vars(views).items()
                if isinstance(obj, type) and obj.__module__ == views.__name__}


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """The shift run again on its own journal: marks and every published pair of views."""
    path = tmp_path_factory.mktemp("scenes") / "journal.sqlite"
    published = []
    marks = run_script(load_script(scenarios.SCRIPT), path,
                       on_publish=lambda d, p: published.append((d, p)))
    return path, marks, published


def test_scenarios_build_no_view_by_hand():
    """No view object is made in display/scenarios.py: the table makes them all."""
    tree = ast.parse(Path(scenarios.__file__).read_text(encoding="utf-8"))
    made = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                f, ast.Attribute) else None
            if name in VIEW_CLASSES or name == "replace":
                made.append((name, node.lineno))
    assert not made, made
    assert {"DealerView", "PlayerView", "SeatView", "BetLine", "Banner"} <= VIEW_CLASSES


def test_the_script_is_shipped_and_has_every_scenario():
    """The package carries the repository's script (package data), with a mark per scenario."""
    assert scenarios.SCRIPT.read_bytes() == SCRIPT.read_bytes()
    assert set(load_script(scenarios.SCRIPT).marks) == set(SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_scenario_is_the_table_replayed_from_its_script(replayed, name):
    path, marks, published = replayed
    sc = build(name)
    mark = marks[name]
    assert sc.seq == mark.seq
    # the views the live table published after that event...
    assert (sc.dealer, sc.player) == published[mark.seq - 1]
    # ...and the views rebuilt from the journal at that event
    assert views_at(path, sc.seq) == (sc.dealer, sc.player)


def test_scenarios_are_what_their_names_say():
    sc = {n: build(n) for n in SCENARIOS}
    d = {n: s.dealer for n, s in sc.items()}
    p = {n: s.player for n, s in sc.items()}
    assert d["betting"].state == "betting" and "no_more_bets" in d["betting"].allowed
    assert d["dealing"].state == "dealing" and d["dealing"].next_card == (3, 2)
    assert d["decisions"].state == "deciding"
    decided = [s.seat for s in d["decisions"].seats if s.decision]
    undecided = [s.seat for s in d["decisions"].seats if s.bets.get("ante") and not s.decision]
    assert decided == [1, 2] and undecided == [3, 5, 6]
    for n, qualifies in (("reveal-qualify", True), ("reveal-no-qualify", False)):
        assert d[n].state == p[n].state == "reveal"
        assert d[n].dealer_qualifies is p[n].dealer_qualifies is qualifies
        assert all(p[n].dealer_cards)
    for n in ("settled", "recall", "meters"):
        assert d[n].state == "settled" and d[n].payouts
    assert (sc["recall"].dealer_screen, sc["meters"].dealer_screen) == ("recall", "meters")
    assert len(d["recall"].recall) == 10  # R5: the current round and the nine before it
    # a void returns every wager, and every seat is told (R14)
    assert d["void"].state == "void" and d["void"].void_reason == "Shoe fault"
    for s in d["void"].seats:
        assert all(b.outcome == "refund" for b in s.results) and s.net in (None, 0)
    assert [b.kind for b in p["void"].banners] == ["void"]
    # a card before No more bets: the table voids the round and asks for a supervisor
    assert d["auto-void"].state == "void" and "next_round" in d["auto-void"].pin_needed
    assert d["auto-void"].void_reason == "card_before_no_more_bets"
    # a lost shoe link shows on both screens at once (R15); the round waits
    assert d["link-lost"].state == p["link-lost"].state == "paused"
    assert d["link-lost"].link_state == p["link-lost"].link_state == "disconnected"
    assert [b.kind for b in p["link-lost"].banners] == ["link_lost"]
    assert d["misread-paused"].awaiting_supervisor == "manual_card"
    assert d["misread-paused"].next_card == (5, 2)


def test_settled_round_is_what_the_engine_records():
    """Seat 1 holds A-K-Q of hearts: a straight flush, paid as the mini royal on Pair Plus."""
    dv = build("settled").dealer
    seat1 = dv.seats[0]
    assert seat1.cards == ("Ah", "Kh", "Qh") and seat1.hand == "straight_flush"
    pay = {b.bet: (b.outcome, b.multiple, b.net) for b in seat1.results}
    # docs/rules.md, live profile: Pair Plus mini royal 100 to 1, Ante Bonus straight flush 5 to 1
    assert pay["pair_plus"] == ("win", 100, 100 * 1000)
    assert pay["ante_bonus"] == ("win", 5, 5 * 2500)
    # results in pay order: Play, Ante Bonus, Ante, Pair Plus, 6 Card Bonus
    assert [b.bet for b in seat1.results] == ["play", "ante_bonus", "ante", "pair_plus",
                                              "six_card_bonus"]
    assert dv.recall[0].round_id == dv.round_id
    manual = [(c, pos) for c, pos, m in dv.recall[0].deal if m]
    assert manual == [("3d", "seat 5")]  # entered by hand after the misread
    assert dv.recall[0].deal[0] == ("9s", "burn", False)


def test_paytable_returns_are_the_par_sheet_numbers():
    """docs/rules.md: 96.6270 %, 95.5113 % and 91.4386 % under the live rules (ppm, rounded)."""
    for name in SCENARIOS:
        rtp = dict(build(name).player.paytables.rtp)
        assert rtp == {"ante_play": 966270, "pair_plus": 955113, "six_card_bonus": 914386}


def screenshot(*args, cwd):
    return subprocess.run([sys.executable, "-m", "controller.cli", "screenshot", "--view",
                           "player", "--scenario", "void", "--size", "800x480", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**os.environ, "SDL_VIDEODRIVER": "dummy"})


def one_line_about_out(r):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(lines) == 1 and "--out" in lines[0] and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def test_screenshot_out_into_a_missing_folder_is_refused(tmp_path):
    out = tmp_path / "no" / "such" / "shot.png"
    line = one_line_about_out(screenshot("--out", str(out), cwd=tmp_path))
    assert "does not exist" in line and str(out.parent) in line
    assert not (tmp_path / "no").exists()  # nothing created


def test_screenshot_out_into_an_unwritable_folder_is_refused(tmp_path):
    if os.geteuid() == 0:
        folder = Path("/sys")  # root writes anywhere but here: sysfs refuses new files
        if not folder.is_dir():
            pytest.skip("no /sys to stand for an unwritable folder")
    else:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    out = folder / "shot.png"
    line = one_line_about_out(screenshot("--out", str(out), cwd=tmp_path))
    assert str(folder) in line
    assert not out.exists()


def test_screenshot_out_that_is_not_a_file_in_a_folder(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    line = one_line_about_out(screenshot("--out", str(tmp_path / "file.txt" / "s.png"),
                                         cwd=tmp_path))
    assert "not a folder" in line
    line = one_line_about_out(screenshot("--out", str(tmp_path), cwd=tmp_path))
    assert "is a folder" in line


def test_screenshot_out_relative_to_the_working_folder(tmp_path):
    r = screenshot("--out", "shot.png", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", ["s.jpg", "s", "s.png.bmp", "/dev/full"])
def test_screenshot_out_must_be_a_png_name(tmp_path, name):
    """pygame picks the format from the name: s.jpg would be a JPEG, s a TGA."""
    out = name if name.startswith("/") else str(tmp_path / name)
    line = one_line_about_out(screenshot("--out", out, cwd=tmp_path))
    assert line == f"threecard screenshot: --out: {out} does not end in .png (a screenshot " \
                   "is a PNG file)"
    assert list(tmp_path.iterdir()) == []
    r = screenshot("--out", str(tmp_path / "S.PNG"), cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "S.PNG").read_bytes()[:4] == b"\x89PNG"


def test_screenshot_to_a_full_disk_says_so_once(tmp_path):
    full = tmp_path / "full.png"
    full.symlink_to("/dev/full")
    line = one_line_about_out(screenshot("--out", str(full), cwd=tmp_path))
    assert line == f"threecard screenshot: --out: cannot write {full}: No space left on device"


def test_screenshot_pad_is_for_the_dealer_screen_only(tmp_path):
    r = screenshot("--pad", "pin", "--out", str(tmp_path / "p.png"), cwd=tmp_path)
    assert r.returncode == 2 and r.stderr == ("threecard screenshot: --pad: the pin pad is on "
                                              "the dealer screen only (--view dealer)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cut", [False, True], ids=["missing", "damaged"])
@pytest.mark.parametrize("bold", [False, True], ids=["regular", "bold"])
def test_screenshot_without_a_bundled_font_stops_with_one_line(tmp_path, monkeypatch, capsys,
                                                               bold, cut):
    """Either face missing (an install without its data files) or cut short: one line
    naming it, no PNG."""
    from controller.cli import main
    from display import theme

    real = theme.font_path
    gone = tmp_path / "fonts" / real(bold).name
    if cut:
        gone.parent.mkdir()
        gone.write_bytes(real(bold).read_bytes()[:1000])

    monkeypatch.setattr(theme, "font_path", lambda b=False: gone if b == bold else real(b))
    theme.font_bytes.cache_clear()  # bytes another test read: this process has the font
    out = tmp_path / "s.png"
    try:
        status = main(["screenshot", "--view", "dealer", "--scenario", "settled",
                       "--out", str(out)])
    finally:
        theme.font_bytes.cache_clear()
    err = capsys.readouterr().err
    assert status == 1 and not out.exists()
    why = r"is damaged \(.+\)" if cut else r"cannot be read \(No such file or directory\)"
    (line,) = err.splitlines()
    assert re.fullmatch(rf"threecard screenshot: the bundled font {re.escape(str(gone))} "
                        rf"{why}: reinstall the software", line), line
