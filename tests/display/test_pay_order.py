"""The payout list pays in the rules' one pay order."""

from __future__ import annotations

import display.dealer.payouts as payouts
from controller.game import pay_lines


def test_the_payout_list_reads_the_rules_pay_order():
    assert payouts.in_pay_order is pay_lines.in_pay_order
