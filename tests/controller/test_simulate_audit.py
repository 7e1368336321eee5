"""simulate audits every finished round: invariants, meters reconciliation."""

import copy
import json

from controller.cli import main
from controller.simulate_cli import RoundAudit


def test_a_faulty_run_has_no_invariant_violations(capsys):
    assert main(["simulate", "--rounds", "300", "--seats", "7", "--seed", "4", "--faults",
                 "random=0.02", "--journal", ":memory:", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["invariant_violations"] == 0, out["invariant_examples"]
    assert out["rounds_audited"] == out["rounds_settled"] + out["rounds_voided"]
    assert out["rounds_voided"] > 0 and sum(out["faults_injected"].values()) > 0


GOOD = {
    "round_id": 7, "status": "settled",
    "deal": [["Ah", "seat 1", False], ["2c", "dealer", False], ["Kh", "seat 1", False],
             ["3c", "dealer", False], ["Qh", "seat 1", False], ["9d", "dealer", False]],
    "dealer_cards": ["2c", "3c", "9d"],
    "seats": [{"seat": 1, "cards": ["Ah", "Kh", "Qh"], "bets": {"ante": 100, "play": 100},
               "decision": "play", "results": {
                   "play": {"outcome": "push", "net": 0, "stake": 100, "multiple": 0},
                   "ante_bonus": {"outcome": "win", "net": 500, "stake": 100, "multiple": 5},
                   "ante": {"outcome": "win", "net": 100, "stake": 100, "multiple": 1}},
               "net": 600}],
}


def test_the_audit_accepts_a_good_round_and_flags_each_broken_one():
    audit = RoundAudit()
    audit.observe(GOOD)
    assert audit.violations == 0 and audit.seat_net == 600

    def broken(change):
        rec = copy.deepcopy(GOOD)
        change(rec)
        a = RoundAudit()
        a.observe(rec)
        return a.violations

    assert broken(lambda r: r["seats"][0]["cards"].append("2h"))
    assert broken(lambda r: r["dealer_cards"].pop())
    assert broken(lambda r: r["deal"].append(["Ah", "dealer", False]))
    assert broken(lambda r: r["seats"][0].update(decision=None))
    assert broken(lambda r: r["seats"][0]["results"]["ante"].update(net=200))
    assert broken(lambda r: r["seats"][0].update(net=601))
    assert broken(lambda r: r.update(status="void"))  # a void that pays is not a refund
