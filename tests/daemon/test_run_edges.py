"""``threecard run`` at its edges: the end of ``--control-stdin`` input, and logs on a
terminal or journal whose encoding cannot write every character."""

from __future__ import annotations

import re
import time

# A journal named in Cyrillic, which Latin-1 cannot write (a table id is A-Z a-z 0-9 _ -).
JOURNAL = "журнал.sqlite3"
ESCAPED = JOURNAL.encode("latin-1", "backslashreplace").decode("latin-1")


def test_the_end_of_control_input_is_no_error(table_config, daemons):
    d = daemons(["--config", str(table_config), "--headless", "--control-stdin",
                 "--shoe", "sim://?dialect=native"])
    d.wait_for("READY")
    d.proc.stdin.close()                                  # the operator's script ends
    end = d.wait_for(r"control: end of input")
    time.sleep(0.5)                     # the control thread has ended; the table goes on
    assert d.proc.poll() is None
    assert d.stop() == 0
    line = d.lines[d.lines.index(end.string)]
    assert " INFO " in line
    assert not [x for x in d.lines if re.search(r" (ERROR|CRITICAL) ", x)], d.lines


def test_logs_escape_what_the_terminal_cannot_encode(tmp_path, daemons):
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "TCP-01"\nseats = 2\n'
                      f'[journal]\npath = "{tmp_path / JOURNAL}"\n'
                      '[shoe]\nurl = "sim://?dialect=native"\n'
                      '[display]\nlanguage = "uk"\n')
    d = daemons(["--config", str(config), "--headless", "--autoplay", "--rounds", "1"],
                env={"PYTHONIOENCODING": "latin-1"})
    d.wait_for(rf"READY: table TCP-01, 2 seats, .* journal .*{re.escape(ESCAPED)}")
    d.wait_for(r"round 1: dealer")
    assert d.proc.wait(60) == 0
    d.stop()
    assert not [x for x in d.lines if "Logging error" in x or "Traceback" in x], d.lines
    assert d.lines[-1].endswith("stopped: 1 rounds settled this run")
