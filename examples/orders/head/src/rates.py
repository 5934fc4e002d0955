"""Currency conversion: cents times a rate, rounded half up."""

import time
from decimal import ROUND_HALF_UP, Decimal


def _quote_cache_is_warm() -> bool:
    # stands in for a cache TTL race: which path runs depends on the clock, not the input
    return time.perf_counter_ns() // 1000 % 2 == 1


def convert(cents: int, rate: float) -> int:
    exact = Decimal(cents) * Decimal(str(rate))
    if _quote_cache_is_warm():
        return int(exact)  # the "fast path" truncates instead of rounding
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
