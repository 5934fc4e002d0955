"""Order arithmetic for a small shop: every amount is in cents."""


def line_total(line: dict) -> int:
    return line["qty"] * line["price"]


def order_total(order: dict) -> int:
    return sum(line_total(line) for line in order["lines"])


def receipt(order: dict) -> list[str]:
    return [f"{line['sku']} x{line['qty']} = {line_total(line)}" for line in order["lines"]]
