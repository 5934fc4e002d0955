"""Currency conversion: cents times a rate, rounded half up."""

from decimal import ROUND_HALF_UP, Decimal


def convert(cents: int, rate: float) -> int:
    exact = Decimal(cents) * Decimal(str(rate))
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
