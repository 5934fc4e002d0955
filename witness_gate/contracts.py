"""The `contract` decorator that property modules use to declare name, invariant and domain."""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is 2 ms and half a megabyte at every evaluation's start: checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    F = TypeVar("F", bound=Callable[..., object])


def contract(*, invariant: str, domain: str) -> Callable[[F], F]:
    """Declare a property's contract (article 004); the name is the function's name.

    The gate reads these arguments from the source without running it, so write them as
    string literals.
    """

    def mark(func: F) -> F:
        func.__witness_contract__ = {  # type: ignore[attr-defined]
            "name": func.__name__,
            "invariant": invariant,
            "input_domain": domain,
        }
        return func

    return mark
