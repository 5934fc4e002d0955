"""Properties of the shop's order arithmetic, each a pure check over the pinned fixture."""

from decimal import ROUND_HALF_UP, Decimal

from orders import line_total, order_total, receipt
from rates import convert

from witness_gate import contract


@contract(
    invariant="no order and no order line has a negative total",
    domain="orders whose lines have non-negative qty and price",
)
def prop_order_total_non_negative(fixture: dict):
    for order in fixture["orders"]:
        if order_total(order) < 0 or any(line_total(line) < 0 for line in order["lines"]):
            return "negative-total"
    return True


@contract(
    invariant="a receipt has one entry per order line",
    domain="orders with any number of lines",
)
def prop_receipt_lists_every_line(fixture: dict):
    return all(len(receipt(order)) == len(order["lines"]) for order in fixture["orders"])


@contract(
    invariant="converting an order total rounds half up, every time",
    domain="the first order and the rate of its currency",
)
def prop_converted_total_rounds_half_up(fixture: dict):
    order = fixture["orders"][0]
    rate = fixture["rates"][order["currency"]]
    cents = order_total(order)
    exact = Decimal(cents) * Decimal(str(rate))
    expected = int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return True if convert(cents, rate) == expected else "rounding-drift"
