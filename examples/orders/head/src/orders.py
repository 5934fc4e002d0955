"""Order arithmetic for a small shop: every amount is in cents."""

BULK_QTY = 10
BULK_DISCOUNT = 5  # cents off a line of ten or more


def line_total(line: dict) -> int:
    total = line["qty"] * line["price"]
    if line["qty"] >= BULK_QTY:
        total -= BULK_DISCOUNT
    return total


def order_total(order: dict) -> int:
    return sum(line_total(line) for line in order["lines"])


def receipt(order: dict) -> list[str]:
    return [f"{line['sku']} x{line['qty']} = {line_total(line)}" for line in order["lines"]]
