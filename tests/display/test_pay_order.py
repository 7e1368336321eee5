"""The payout list pays in the rules' one pay order."""

from __future__ import annotations

import display.dealer.payouts as payouts
from controller.game import rules


def test_the_payout_list_reads_the_rules_pay_order():
    assert payouts.PAY_ORDER is rules.PAY_ORDER
