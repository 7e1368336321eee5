"""The table daemon told the wrong dialect says so, in its log and on the dealer's banner."""

from __future__ import annotations

import re

from shoe_rig import shoe_on_pty

from simulators.runner import ShoeRunner


def test_a_native_shoe_on_a_beetek_table_is_named_in_the_log(daemons, table_config, notify):
    shoe, port = shoe_on_pty("native", seed=3)
    runner = ShoeRunner(shoe, heartbeat_ms=200)  # a native shoe's heartbeats: bytes flow
    runner.start()
    try:
        d = daemons(["--config", str(table_config), "--headless",
                     "--shoe", f"serial://{port.path}?dialect=beetek"],
                    env={"NOTIFY_SOCKET": notify.addr})
        d.wait_for(r"READY")
        d.cursor = 0  # the link opens before READY: it may name the dialect before or after
        link = d.wait_for(r"WARNING +shoe \S+: no frame decoded from (\d+) bytes: is the "
                          r"dialect right\? \(this link decodes the beetek dialect; "
                          r"the bytes decode as the native dialect\)", timeout=20)
        assert int(link.group(1)) >= 16
        status = notify.status_until(lambda s: "is the dialect right?" in s)  # systemctl too
        assert "; shoe online (no frame decoded: is the dialect right?)" in status, status
        assert d.stop() == 0
    finally:
        runner.stop()
        port.close()
    said = [line for line in d.lines if "is the dialect right?" in line
            and not re.search(r" DEBUG +", line)]
    assert len(said) == 1, said  # by the link, which names it; the banner is not logged again
    assert not any(re.search(r"round \d+ (VOID|paused)", line) for line in d.lines)
