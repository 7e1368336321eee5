"""The pit page in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium) logs in with the pit PIN, sees a round a real table
dealt appear within 2 s of the store, and an alarm raised at the table; screenshots at
tablet and desktop sizes. Without Chromium the test is skipped, except in CI, where it
fails: CI installs it (.ci/run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.game.auth import demo_pin_hashes, hash_pin

CHROMIUM, DRIVER = shutil.which("chromium") or "", shutil.which("chromedriver") or ""
TABLE = "PIT-1"
PIN = "97531"
SIZES = {"tablet": (1024, 768), "desktop": (1920, 1080)}


def _need_chromium() -> None:
    if not (CHROMIUM and DRIVER):
        why = "chromium and chromedriver are not installed (Debian chromium, chromium-driver)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{why}: CI installs them (.ci/run)")
        pytest.skip(why)


@pytest.fixture(scope="module")
def pit(module_floor):
    """A broker, the recorder, a table taking dealer commands on stdin, the pit page."""
    _need_chromium()
    f = module_floor  # its broker() skips, or fails in CI, without Mosquitto
    broker = f.broker().start()
    store = f.folder / "floor.sqlite3"
    f.recorder(broker, store)
    config = f.folder / "table.toml"
    config.write_text(f'[table]\nid = "{TABLE}"\n[roles]\n' + "".join(
        f'{k} = "{v}"\n' for k, v in demo_pin_hashes().items()))
    log = f.folder / "table.log"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
    # autoplay's own supervisor PIN is wrong here: a void stays open for a person
    with open(log, "ab") as out:
        table = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--demo", "--headless", "--config",
             str(config), "--seats", "2", "--pace-ms", "250", "--supervisor-pin", "1111",
             "--control-stdin", "--journal", str(f.folder / "journal.sqlite3"), "--floor",
             broker.url], stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
            env=env)
    floor_toml = f.folder / "floor.toml"
    floor_toml.write_text(f'[roles]\npit = "{hash_pin(PIN)}"\n')
    port = f.free_port()
    web = f.run("web", "floor", "web", "--store", str(store), "--config", str(floor_toml),
                "--listen", f"127.0.0.1:{port}")
    f.wait_until(lambda: store.exists(), 60, "the store")
    web.wait_for(r"pit page on http://", 30)
    yield table, log, store, f"http://127.0.0.1:{port}", f.wait_until
    table.kill()
    table.wait(10)


@pytest.fixture(scope="module")
def browser(pit, tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
              "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--lang=en-GB",
              f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield d
    d.quit()


def _shots(driver, name: str, folder: Path) -> list[Path]:
    out = []
    for size, (w, h) in SIZES.items():
        driver.set_window_size(w, h)
        path = folder / f"{name}-{size}.png"
        driver.save_screenshot(str(path))
        out.append(path)
    return out


def test_the_pit_page_shows_a_new_round_within_2_s_and_an_alarm(pit, browser, tmp_path):
    from selenium.webdriver.common.by import By

    table, log, store, url, wait = pit
    shots = Path(os.environ.get("THREECARD_PIT_SHOTS") or tmp_path)
    browser.set_window_size(*SIZES["tablet"])
    browser.get(url + "/")
    assert "/login" in browser.current_url
    browser.find_element(By.NAME, "pin").send_keys(PIN + "\n")
    row = f'tr[data-table="{TABLE}"]'
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, row), 60, "the table's row")

    def newest() -> int:
        from floor.store import Store
        s = Store(store, readonly=True)
        try:
            t = next((t for t in s.tables() if t.table_id == TABLE), None)
            got = s.rounds(TABLE, t.journal, last=1) if t else []
            return got[0]["round_id"] if got else 0
        finally:
            s.close()

    def shown() -> int:  # read in the page at once: the page replaces its rows as it updates
        got = browser.execute_script(
            "const r = document.querySelector(arguments[0]);"
            "return r ? r.getAttribute('data-round') : null;", row)
        return int(got or 0)

    start = newest()
    wait(lambda: newest() > start, 60, "a new round in the store")
    stored_at, dealt = time.monotonic(), newest()
    wait(lambda: shown() >= dealt, 5, f"round {dealt} on the page", every=0.05)
    late = time.monotonic() - stored_at
    print(f"round {dealt} on the pit page {late:.2f} s after the store had it")
    assert late <= 2.0
    _shots(browser, "pit", shots)

    def void_open() -> bool:
        # a void is refused once every card is dealt: asked again until the table takes it
        table.stdin.write(b'{"command": "void", "reason": "shoe jam", "pin": "2468"}\n')
        table.stdin.flush()
        shown = browser.execute_script(  # the alarm's message, its kind in data-kind
            "return Array.from(document.querySelectorAll(arguments[0]),"
            " c => [c.getAttribute('data-kind'), c.textContent]);", f"{row} td span.error")
        return any(kind == "void" and words.strip() for kind, words in shown)
    wait(void_open, 60, "the void alarm on the pit page", every=0.5)
    _shots(browser, "pit-alarm", shots)
    # clicked in one script call: the page may replace the row between a find and a click
    browser.execute_script("document.querySelector(arguments[0]).click();",
                           f'{row} a[href="/table/{TABLE}"]')
    wait(lambda: browser.find_elements(By.CSS_SELECTOR, "table.round span.card"), 10,
         "the table's rounds, card by card")
    assert "void" in browser.find_element(By.TAG_NAME, "main").text
    _shots(browser, "table", shots)
    browser.get(url + f"/table/{TABLE}?lang=uk")
    wait(lambda: "Останні ігри" in browser.page_source, 10, "the page in Ukrainian")
    _shots(browser, "table-uk", shots)
    browser.get(url + "/?lang=fr")
    wait(lambda: "Dernière partie" in browser.page_source, 10, "the page in French")
    _shots(browser, "pit-fr", shots)
