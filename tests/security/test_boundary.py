"""The judge and the subject: what a property can still do with the implementation across the process boundary, and
what the boundary refuses. Every test runs a real property in two bubblewrap sandboxes (witness_gate.sandbox.runner)."""

from __future__ import annotations

import textwrap

import pytest

from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, stage_directory

IMPL = '''
import enum
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction

Point = namedtuple("Point", "x y")


class Colour(enum.Enum):
    RED = 1
    BLUE = 2
    NAVY = 2  # an alias, as natsort's `ns.I` is `ns.INT`: its tests name enums by their aliases


class OutOfStock(LookupError):
    def __init__(self, sku):
        super().__init__(f"no {sku} left")
        self.sku = sku


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, sku, qty):
        if qty > 3:
            raise OutOfStock(sku)
        self.lines.append((sku, qty))
        return self

    def count(self):
        return sum(qty for _, qty in self.lines)

    def __eq__(self, other):  # equal carts hold equal lines: no contents here to decide it by
        return isinstance(other, Cart) and self.lines == other.lines
    __hash__ = object.__hash__


def squares(n):
    for i in range(n):
        yield i * i


def apply(f, values):
    return [f(v) for v in values]


def sort_in_place(values):
    values.sort()


def compose(f, g):
    return lambda x: g(f(x))  # keeps the callables it was given, as natsort's chain_functions does


def first_two(items):
    return [next(items), next(items)]  # an iterator, as natsort's helpers take one


def parts(path):
    return type(path).__name__, path.parts, str(path.with_suffix(""))


def exact():
    return Decimal("0.1"), Fraction(1, 3), Point(1, 2), Colour.BLUE


def an_id():
    import uuid
    return uuid.UUID(int=5)


class Liar(int):
    def __lt__(self, other):
        return False
    __gt__ = __le__ = __ge__ = __lt__
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def lying_total():
    return Liar(-5)


class Hiding(list):
    def __iter__(self):
        return iter([x for x in list.__iter__(self) if x >= 0])
    def __len__(self):
        return 1


def hiding_lines():
    return Hiding([3, -4])


def drop_negative(order):
    order["lines"] = [line for line in order["lines"] if line >= 0]
    return sum(order["lines"])


_hidden = []  # what a doctored order held: the next call puts it back (found by a reviewer)


def hide_then_total(order):
    _hidden.append(list(order["lines"]))
    order["lines"] = [max(0, line) for line in order["lines"]]  # what the property checks next looks harmless
    return sum(order["lines"])


def put_back(order):
    if _hidden:
        order["lines"] = _hidden.pop()  # and the pinned payload is as it was when the property ends
    return True


from collections.abc import Sequence


class Row(Sequence):  # a sequence of the implementation's own, as pyrsistent's pvector is
    def __init__(self, items):
        self._items = list(items)
    def __getitem__(self, i):
        return self._items[i]
    def __len__(self):
        return len(self._items)
    def __eq__(self, other):
        return isinstance(other, (Row, list, tuple)) and list(self) == list(other)
    def __lt__(self, other):
        return list(self) < list(other)
    def __add__(self, other):
        return type(self)(list(self) + list(other))
    def __mul__(self, times):
        return type(self)(list(self) * times)
    __rmul__ = __mul__
    __hash__ = None


class AlwaysEqual(Row):  # the forged answer: equal to whatever it is compared with
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False


class SameLength(Row):  # a regression in equality itself: only the lengths are compared
    def __eq__(self, other):
        return len(self) == len(other)


class Mirror(Row):  # takes on whatever it is compared with, and then holds it (found by the author, attacking)
    def __eq__(self, other):
        self._items = list(other)
        return True


class HasAll(Row):  # `needle in result` forged
    def __contains__(self, item):
        return True


class NeverEqual(Row):  # found by a reviewer: a forged "unequal" passed `assert v.set(0, 9) != v`
    def set(self, i, value):
        return type(self)(self._items)  # the regression: the change is dropped
    def __eq__(self, other):
        return False
    def __ne__(self, other):
        return True


_seen = []


class Peek(Row):  # found by a reviewer: what a handle was compared with reached the implementation
    def __eq__(self, other):
        _seen.append(other)
        return False


def leaked():
    return _seen[-1] if _seen else None


class StrictRow(Row):  # found by a second reviewer: regressions in the object's own methods passed
    def __contains__(self, item):
        return False  # the regression: nothing is found
    def __eq__(self, other):
        return isinstance(other, StrictRow) and list(self) == list(other)  # a list is no longer equal


class Unordered(Row):
    def __lt__(self, other):
        raise TypeError("rows are not ordered")


class AlwaysTrue(Row):
    def __bool__(self):
        return True


def row(items, kind="Row"):
    return globals()[kind](items)


def distinct(items):
    return len(set(items))


class Base:  # a class the oracle subclasses, as pyrsistent's tests subclass PRecord and CheckedPVector
    kind = "base"
    def __init__(self, items):
        self.items = list(items)
    def total(self):
        return sum(self.check(item) for item in self.items)
    def check(self, item):
        return item
    @classmethod
    def make(cls, *items):
        return cls(items)


class Typed:
    __type__ = object
    def __init__(self, value):
        if not isinstance(value, self.__type__):
            raise TypeError(f"not a {self.__type__.__name__}")
        self.value = value


import typing
from collections.abc import Mapping, MutableMapping

K, V = typing.TypeVar("K"), typing.TypeVar("V")


class Pairs(MutableMapping, typing.Generic[K, V]):  # a generic mapping, as bidict's classes are
    def __init__(self, items=()):
        self.data = dict(items)
    def __getitem__(self, key):
        return self.data[key]
    def __setitem__(self, key, value):
        self.data[key] = value
    def __delitem__(self, key):
        del self.data[key]
    def __iter__(self):
        return iter(self.data)
    def __len__(self):
        return len(self.data)


class Lines:  # no mapping, no sequence
    pass


import dataclasses


@dataclasses.dataclass
class Money:  # a value object, as tests compare them: `assert parse(text) == Money(150, "GBP")`
    cents: int
    currency: str
    seen: int = dataclasses.field(default=0, compare=False)  # a field the class itself does not compare


def parse(text):
    amount, currency = text.split()
    money = Money(int(float(amount) * 100), currency)
    money.seen += 1
    return money


def parse_truncating(text):  # the regression: "0.29" is 28 cents in binary floating point
    amount, currency = text.split()
    return Money(int(float(amount) * 100 // 1), currency)


class Slotted:  # its own equality over slots
    __slots__ = ("name", "size")

    def __init__(self, name, size):
        self.name, self.size = name, size

    def __eq__(self, other):
        return isinstance(other, Slotted) and (self.name, self.size) == (other.name, other.size)

    __hash__ = None


class EqualToAny:  # the forged answer on an object with attributes: equal to every other of its class
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return True

    __hash__ = None


class Chameleon:  # takes on the attributes of what it is compared with, then says equal (the author, attacking)
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        self.__dict__.update(getattr(other, "__dict__", {}))
        return True

    __hash__ = None


class Link:  # a linked list of value objects: nested as deep as it is long (found by a reviewer at 170)
    def __init__(self, value, nxt=None):
        self.value, self.nxt = value, nxt

    def __eq__(self, other):
        return isinstance(other, Link) and self.value == other.value and self.nxt == other.nxt

    __hash__ = None


def chain(n):
    head = None
    for value in range(n):
        head = Link(value, head)
    return head


class TreeNode:  # a parent pointer its own == leaves out (found by a reviewer: a RecursionError)
    def __init__(self, value, parent=None):
        self.value, self.parent, self.children = value, parent, []
        if parent is not None:
            parent.children.append(self)

    def __eq__(self, other):
        return isinstance(other, TreeNode) and (self.value, self.children) == (other.value, other.children)

    __hash__ = None


def tree():
    root = TreeNode("root")
    TreeNode("leaf", TreeNode("branch", root))
    return root


class Node:  # objects holding objects: compared by what they hold, all the way down
    def __init__(self, label, child=None):
        self.label, self.child = label, child

    def __eq__(self, other):
        return isinstance(other, Node) and (self.label, self.child) == (other.label, other.child)

    __hash__ = None


def poke(token):  # an oracle's object asked for more than a container asks of a member
    try:
        token._ask("__reduce__")
    except TypeError as exc:
        return str(exc)
    return "answered"
'''

PROPS = '''
from shop import (Cart, Chameleon, Colour, EqualToAny, an_id, chain, tree, Lines, Money, Node, OutOfStock, Slotted, apply, compose, drop_negative, exact, first_two, hide_then_total, hiding_lines,
                  lying_total, parts,
                  distinct, leaked, parse, parse_truncating, poke, put_back, row, sort_in_place, squares, Base,
                  Typed)


class Doubled(Base):
    kind = "doubled"
    def check(self, item):
        return 2 * item
    @staticmethod
    def unit():
        return 1
    @property
    def size(self):
        return len(self.items)


class Ints(Typed):
    __type__ = int


class Token:  # an object of the oracle's own, as pyrsistent's tests put in its vectors
    def __init__(self, name):
        self.name = name
    def __eq__(self, other):
        return isinstance(other, Token) and other.name == self.name
    def __hash__(self):
        return hash(self.name)
    def __repr__(self):
        return f"Token({self.name!r})"


def prop_object_methods(fixture):
    cart = Cart().add("a", 1).add("b", 2)
    return cart.count() == 3 and cart.lines == [("a", 1), ("b", 2)]


def prop_generator(fixture):
    return list(squares(4)) == [0, 1, 4, 9] and sum(x for x in squares(3)) == 5


def prop_callback(fixture):
    return apply(lambda v: v * 10, [1, 2]) == [10, 20]


def prop_exception_caught(fixture):
    try:
        Cart().add("tea", 9)
    except OutOfStock as exc:
        return isinstance(exc, LookupError) and exc.sku == "tea" and str(exc) == "no tea left"
    return "did-not-raise"


def prop_exception_escapes(fixture):
    Cart().add("tea", 9)


def prop_in_place(fixture):
    values = [3, 1, 2]
    sort_in_place(values)
    return values == [1, 2, 3]


def prop_kept_callables(fixture):
    twice_after_one = compose(lambda x: x + 1, lambda x: x * 2)
    return twice_after_one(3) == 8 and twice_after_one(0) == 2


def prop_oracle_iterators_and_paths(fixture):
    import pathlib
    squares_here = (n * n for n in range(4))
    return (first_two(iter([3, 1, 2])) == [3, 1] and first_two(squares_here) == [0, 1]
            and parts(pathlib.Path("a/b.txt")) == ("PosixPath", ("a", "b.txt"), "a/b")
            and parts(pathlib.PurePosixPath("/x/y.py")) == ("PurePosixPath", ("/", "x", "y.py"), "/x/y"))


def prop_exact_values(fixture):
    from decimal import Decimal
    from fractions import Fraction
    from uuid import UUID
    d, f, p, c = exact()
    return (type(d) is Decimal and d == Decimal("0.1") and f == Fraction(1, 3) and p.x == 1 and p == (1, 2)
            and c is Colour.BLUE and c.value == 2 and Colour.NAVY is c and Colour["NAVY"] is c
            and an_id() == UUID(int=5) and an_id() != UUID(int=6) and type(an_id()) is UUID)  # a reviewer: it bounced


def prop_compare_objects(fixture):
    return Lines() == Lines()


def prop_compare_by_attributes(fixture):
    return (Cart() == Cart() and Cart().add("a", 1) == Cart().add("a", 1) and Cart().add("a", 1) != Cart()
            and parse("1.50 GBP") == Money(150, "GBP") and parse("1.50 GBP") != Money(150, "EUR")
            and Money(1, "GBP") != Cart() and Slotted("a", 1) == Slotted("a", 1) and Slotted("a", 1) != Slotted("a", 2)
            and Node("a", Node("b")) == Node("a", Node("b")) and Node("a", Node("b")) != Node("a", Node("c")))


def prop_value_object_regression(fixture):
    assert parse_truncating("0.29 GBP") == Money(29, "GBP")
    return True


def prop_equal_to_any_object(fixture):
    assert EqualToAny(1) == EqualToAny(2)
    return True


def prop_long_chain(fixture):
    return chain(100) == chain(100)


def prop_tree_with_parents(fixture):
    return tree() == tree()


def prop_chameleon_object(fixture):
    assert Chameleon(1) == Chameleon(2)
    return True


def prop_truth_of_object(fixture):
    return bool(Cart()) and not row([]) and bool(row([0]))


def prop_compare_sequences(fixture):
    return (row([1, 2]) == [1, 2] and [1, 2] == row([1, 2]) and row([1, 2]) == (1, 2) and row([1, 2]) != [1, 3]
            and row([1, 2]) != "12" and row([1]) < row([1, 2]) and row([row([1])]) == [[1]]
            and row([1]) + row([2]) == [1, 2] and 2 * row([1]) == [1, 1] and row([1]) * 2 == (1, 1))


def prop_oracle_objects_by_reference(fixture):
    a, b, same_as_a = Token("a"), Token("b"), Token("a")
    kept = row([a, b])
    return (kept[0] is a and list(kept) == [a, b] and kept == [same_as_a, b] and kept.index(same_as_a) == 0
            and distinct([a, b, same_as_a]) == 2 and repr(kept[1]) == "Token('b')"
            and "held by reference" in poke(a))


def prop_oracle_subclass(fixture):
    doubled = Doubled.make(1, 2)
    try:
        Ints("x")
        refused = False
    except TypeError as exc:
        refused = str(exc) == "not a int"
    return (doubled.total() == 6 and doubled.kind == "doubled" and Doubled.unit() == 1 and doubled.size == 2
            and isinstance(doubled, Doubled) and isinstance(doubled, Base) and not isinstance(Base([1]), Doubled)
            and issubclass(Doubled, Base) and Ints(3).value == 3 and refused)


def prop_generic_classes(fixture):
    # bidict's tests: `class UserBi(bidict[KT, VT])`, `BB = BidictBase[KT, VT]`, `t.Type[BB[KT, VT]]`, the classes
    # compared and tried against the standard library's abstract classes
    import typing
    from collections.abc import Mapping, Reversible, Sequence
    from shop import Pairs, Lines
    KT, VT = typing.TypeVar("KT"), typing.TypeVar("VT")
    PT = Pairs[KT, VT]
    BT = typing.Type[PT[KT, VT]]
    kinds = typing.Union[typing.Type[Pairs[KT, VT]], typing.Type[Lines]]

    class Mine(Pairs[KT, VT]):
        def doubled(self, key):
            return 2 * self[key]
    mine = Mine({"a": 2})
    try:
        isinstance(mine, PT)
        checked = False
    except TypeError:
        checked = True
    return (mine.doubled("a") == 4 and PT({"b": 1})["b"] == 1 and BT[int, str] is not None and kinds is not None
            and Pairs == Pairs and Pairs != Lines and Pairs in (Lines, Pairs) and Lines not in (Pairs,)
            and isinstance(mine, Mapping) and not isinstance(mine, Sequence) and issubclass(Pairs, Mapping)
            and not issubclass(Lines, Mapping) and not issubclass(Pairs, Reversible) and checked)


def prop_always_equal(fixture):
    return row([3, 1], "AlwaysEqual") == [1, 3]


def prop_mirror(fixture):
    return row([3, 1], "Mirror") == [1, 3]


def prop_has_all(fixture):
    assert 3 in row([3], "HasAll") and 4 not in row([3])  # a claim its items support, and one of absence
    return 7 in row([1], "HasAll")


def prop_equal_by_length(fixture):  # two of its own objects: its answer is asked, and must agree
    return row([1, 2], "SameLength") != row([1, 3], "SameLength")


def prop_forged_unequal(fixture):
    v = row([1, 2], "NeverEqual")
    return v.set(0, 9) != v


def prop_contains_broken(fixture):
    return 2 in row([1, 2], "StrictRow")


def prop_equal_to_a_list_broken(fixture):
    return row([1, 2], "StrictRow") == [1, 2]


def prop_unordered_raises(fixture):  # the implementation's TypeError is its answer: `pytest.raises` sees it
    try:
        row([1], "Unordered") < [2]
    except TypeError as exc:
        return str(exc) == "rows are not ordered" or "another TypeError"
    return "ordered"


def prop_contents_taken_first(fixture):
    assert row([0], "Peek") != fixture["expected"]  # shown after its contents were taken, as in one process
    return leaked() == fixture["expected"] or "not shown"


def prop_always_true(fixture):
    return "empty" if not row([], "AlwaysTrue") else True


def prop_lying_int(fixture):
    total = lying_total()
    return "negative" if total < 0 else True


def prop_lying_list(fixture):
    lines = hiding_lines()
    return "negative" if len(lines) != 2 or any(x < 0 for x in lines) else True


def prop_payload_put_back(fixture):
    total = hide_then_total(fixture["order"])
    negative = any(x < 0 for x in fixture["order"]["lines"])
    put_back(fixture["order"])
    return "negative" if negative or total < 0 else True


def prop_payload(fixture):
    total = drop_negative(fixture["order"])
    return "negative" if total < 0 or any(x < 0 for x in fixture["order"]["lines"]) else True
'''


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    root = tmp_path_factory.mktemp("shop")
    (root / "src").mkdir()
    (root / "src" / "shop.py").write_text(IMPL)
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "test_shop.py").write_text(textwrap.dedent(PROPS))
    return stage_directory(root)


def evaluate(checkout, name, payload=None):
    runner = PropertyRunner(checkout, f"tests/properties/test_shop.py::{name}", "1", Sandbox("bwrap"), timeout_seconds=20)
    try:
        return runner({} if payload is None else payload)
    finally:
        runner.close()


@pytest.mark.parametrize("name", ["prop_object_methods", "prop_generator", "prop_callback", "prop_exception_caught",
                                  "prop_in_place", "prop_exact_values", "prop_oracle_iterators_and_paths",
                                  "prop_kept_callables", "prop_truth_of_object", "prop_compare_sequences",
                                  "prop_oracle_objects_by_reference", "prop_oracle_subclass",
                                  "prop_generic_classes"])
def test_a_property_uses_the_implementation_as_if_it_were_here(checkout, name):
    row = evaluate(checkout, name)
    assert (row.outcome, row.reason, row.isolation) == ("pass", None, "split-cold"), row.detail


def test_an_implementation_exception_is_a_failure_that_names_where_it_was_raised(checkout):
    row = evaluate(checkout, "prop_exception_escapes")
    assert (row.outcome, row.reason) == ("fail", "raise:OutOfStock@src/shop.py:28"), row.detail


def test_comparing_an_implementation_object_that_holds_nothing_fails_with_the_documented_error(checkout):
    # a class compared by identity has nothing here to check its answer by
    row = evaluate(checkout, "prop_compare_objects")
    assert row.outcome == "fail" and row.reason.startswith("raise:NoContents@tests/properties/test_shop.py:"), row
    assert "stays in the implementation's process" in row.detail


def test_objects_of_a_class_with_its_own_equality_compare_by_their_attributes(checkout):
    # found probing the tests a repository already has: `assert parse(text) == Money(150, "GBP")` between two of the
    # implementation's objects raised NoContents on head and base alike, so a regression there was pre_existing
    assert (evaluate(checkout, "prop_compare_by_attributes").outcome, None) == ("pass", None)
    row = evaluate(checkout, "prop_value_object_regression")
    assert (row.outcome, row.reason) == ("fail", "raise:AssertionError@tests/properties/test_shop.py:" +
                                         row.reason.rpartition(":")[2]), row
    assert "Money(cents=28" in row.detail and "Money(cents=29" in row.detail, row.detail
    # a parent pointer its == leaves out: the pair already being compared further out is equal there
    assert (evaluate(checkout, "prop_tree_with_parents").outcome, None) == ("pass", None)
    # nested deeper than the judge checks: no check, as before, never a transport fault (a hold)
    row = evaluate(checkout, "prop_long_chain")
    assert row.outcome == "fail" and row.reason.startswith("raise:NoContents@"), row
    # equal to every object of its class, whatever they hold, or taking on in its == what it is shown: its own answer
    # disagrees with what the two held before it was shown the other (an object that lies about its attributes
    # while they are read is the implementation's to build on both sides: docs/SECURITY.md)
    for forged in ("prop_equal_to_any_object", "prop_chameleon_object"):
        row = evaluate(checkout, forged)
        assert row.outcome == "fail" and row.reason.startswith("raise:ImplementationDisagrees@"), row


@pytest.mark.parametrize("name, reason", [
    ("prop_always_equal", "raise:ImplementationDisagrees@"),  # equal to anything: `assert result == expected`
    ("prop_mirror", "raise:ImplementationDisagrees@"),  # takes on what it is compared with: contents come first
    ("prop_has_all", "raise:ImplementationDisagrees@"),  # `needle in result`
    ("prop_contains_broken", "raise:ImplementationDisagrees@"),
    ("prop_equal_to_a_list_broken", "raise:ImplementationDisagrees@"),
    ("prop_equal_by_length", "raise:ImplementationDisagrees@"),  # a regression in equality itself is not hidden
    ("prop_forged_unequal", "raise:ImplementationDisagrees@"),
    ("prop_always_true", "raise:ImplementationDisagrees@")])
def test_an_object_whose_comparison_or_truth_is_forged_fails(checkout, name, reason):
    # equality, order and `in` are the object's own answers, which stand only when its contents (taken before it is
    # shown the other side) agree
    row = evaluate(checkout, name)
    assert row.outcome == "fail" and row.reason.startswith(reason), row


def test_an_implementation_s_own_error_from_a_comparison_is_its_answer(checkout):
    row = evaluate(checkout, "prop_unordered_raises")
    assert (row.outcome, row.reason) == ("pass", None), row


def test_an_object_is_shown_what_it_is_compared_with_only_after_its_contents_were_taken(checkout):
    # the trade made (docs/SECURITY.md): shown the other side, as in one process, so that its own `==` is asked
    row = evaluate(checkout, "prop_contents_taken_first", {"expected": ["secret", 42]})
    assert (row.outcome, row.reason) == ("pass", None), row


@pytest.mark.parametrize("name", ["prop_lying_int", "prop_lying_list"])
def test_a_value_that_lies_arrives_as_the_plain_value_it_is(checkout, name):
    row = evaluate(checkout, name)
    assert (row.outcome, row.reason) == ("fail", "negative"), row.detail


def test_the_implementation_changing_the_payload_it_was_handed_fails(checkout):
    row = evaluate(checkout, "prop_payload", {"order": {"lines": [3, -4]}})
    assert (row.outcome, row.reason) == ("fail", "mutated_payload"), row.detail


def test_a_payload_changed_and_put_back_by_later_calls_still_fails(checkout):
    # one call doctors the pinned payload, the property looks, a later call restores it: the payload is the same
    # when the property ends, but a change reached it (found by a reviewer: the bundled example's regression passed)
    row = evaluate(checkout, "prop_payload_put_back", {"order": {"lines": [3, 5]}})
    assert (row.outcome, row.reason) == ("pass", None), row.detail  # control: nothing to hide, nothing changed
    row = evaluate(checkout, "prop_payload_put_back", {"order": {"lines": [3, -4]}})
    assert (row.outcome, row.reason) == ("fail", "mutated_payload"), row.detail


def test_a_warm_pair_serves_candidates_and_says_so(checkout):
    runner = PropertyRunner(checkout, "tests/properties/test_shop.py::prop_lying_int", "1", Sandbox("bwrap"),
                            timeout_seconds=20)
    try:
        rows = [runner(None), runner.candidate(None), runner.candidate(None)]
    finally:
        runner.close()
    assert [(r.outcome, r.reason, r.isolation) for r in rows] == [
        ("fail", "negative", "split-cold"), ("fail", "negative", "split-warm"), ("fail", "negative", "split-warm")]


def staged(root, files: dict[str, str]):
    """A checkout of `files` (relpath -> text), staged for the sandbox."""
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)
    return stage_directory(root)


SERIES = {
    "src/counter.py": "CALLS = []\n\n\ndef count():\n    CALLS.append(1)\n    return len(CALLS)\n",
    "tests/properties/helper.py": "SEEN = []\n",
    "tests/properties/test_series.py": '''
import decimal
import os
import signal
import sys
import threading
import time
import warnings

from counter import count
from tests.properties import helper

STDOUT = sys.stdout


def prop_fresh(fixture):
    # what an evaluation before this one could have left behind in the judge, and its subject's count
    leaked = [what for what, there in (
        ("a helper module's list", helper.SEEN), ("a working directory", not os.path.isdir("tests/properties")),
        ("an environment variable", "WITNESS_LEFT" in os.environ), ("an import path", "/left" in sys.path),
        ("a standard stream", sys.stdout is not STDOUT), ("a decimal context", decimal.getcontext().prec != 28),
        ("a recursion limit", sys.getrecursionlimit() == 4321), ("a subject's state", count() != 1),
        ("a warning filter", any(f[0] == "error" for f in warnings.filters)), ("a umask", os.umask(0o022) == 0o077),
        ("a signal handler", signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL)) if there]
    helper.SEEN.append(1)
    os.chdir("/")
    os.environ["WITNESS_LEFT"] = "1"
    sys.path.append("/left")
    sys.stdout = sys.stderr
    decimal.getcontext().prec = 3
    sys.setrecursionlimit(4321)
    warnings.simplefilter("error")
    os.umask(0o077)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # allowed on the main thread, as in a cold judge
    if fixture.get("thread"):
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    return "leaked: " + ", ".join(leaked) if leaked else True
''',
}


def test_shrink_candidates_sent_to_one_judge_start_from_what_a_fresh_one_has(tmp_path):
    # a property's candidates go to one judge, one after another, which puts back what each changed; its rows are
    # split-warm (they steer a shrink and decide nothing else) and each still has a subject of its own
    runner = PropertyRunner(staged(tmp_path, SERIES), "tests/properties/test_series.py::prop_fresh", "1",
                            Sandbox("bwrap"), timeout_seconds=20)
    try:
        rows = [runner({})] + [runner.candidate({}) for _ in range(3)]
        first = runner._sides.series["tests/properties/test_series.py::prop_fresh"][1]
        rows += [runner.candidate({"thread": True}), runner.candidate({})]  # a thread left running ends the series
        after = runner._sides.series["tests/properties/test_series.py::prop_fresh"][1]
    finally:
        runner.close()
    assert [(r.outcome, r.reason) for r in rows] == [("pass", None)] * 6, [r.reason for r in rows]
    assert [r.isolation for r in rows] == ["split-cold"] + ["split-warm"] * 5
    assert after != first  # the candidate after the thread went to a new series judge


SHADOWED = {  # a regression (upper-cased values) in a module named like a package the judge runs for pytest
    "src/iniconfig.py": (
        "class IniConfig:\n    def __init__(self, path, data=None):\n        self.values = {}\n"
        "        for line in (data or '').splitlines():\n            if '=' in line:\n"
        "                key, value = (part.strip() for part in line.split('=', 1))\n"
        "                self.values[key] = value.upper()\n\n"
        "    def get(self, section, name, default=None):\n        return self.values.get(name, default)\n"),
    "tests/properties/test_ini.py": (
        "from iniconfig import IniConfig\n\n\n"
        "def prop_reads(fixture):\n    # a failing assert would say what it compared\n"
        "    return IniConfig('x.ini', data='[s]\\nk = v\\n').get('s', 'k') == 'v'\n"),
}


@pytest.mark.parametrize("warm", [True, False])
def test_an_asserting_property_s_judge_holds_no_package_that_could_answer_for_the_implementation(tmp_path, warm):
    # asserts were once rewritten by the gate's pytest, which brought a package named iniconfig into the judge: the
    # property's import of the implementation's iniconfig found the judge's copy and a regression in it passed (found
    # by a reviewing helper). The rewriting is the standard library's now: the implementation is asked, and fails
    runner = PropertyRunner(staged(tmp_path, SHADOWED), "tests/properties/test_ini.py::prop_reads", "1",
                            Sandbox("bwrap"), timeout_seconds=20, warm=warm)
    try:
        rows = [runner({}), runner.candidate({})]
    finally:
        runner.close()
    assert [(r.outcome, r.reason) for r in rows] == [("fail", "false")] * 2, [r.detail for r in rows]
    assert rows[0].imports == ("iniconfig",)


@pytest.mark.parametrize("how", ["from iniconfig import IniConfig",
                                 "import importlib\nIniConfig = importlib.import_module('iniconfig').IniConfig"])
def test_a_test_importing_a_name_the_judge_s_pytest_holds_gives_no_verdict(tmp_path, how):
    # a repository's own test runs under the gate's pytest, which imports iniconfig itself: the judge cannot ask the
    # implementation's iniconfig for anything, whichever way the test imports it (importlib went past a watch of
    # import statements: found by a reviewing helper), so no test of such a repository gets a verdict
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "iniconfig.py").write_text(SHADOWED["src/iniconfig.py"])
    (tmp_path / "tests" / "test_ini.py").write_text(
        how + "\n\n\ndef test_reads():\n    assert IniConfig('x.ini', data='[s]\\nk = v\\n').get('s', 'k') == 'v'\n")
    runner = PropertyRunner(stage_directory(tmp_path), "pytest:tests/test_ini.py::test_reads", "1", Sandbox("bwrap"),
                            timeout_seconds=30, oracle=("tests/",), tests=True)
    try:
        row = runner({})
    finally:
        runner.close()
    assert (row.outcome, row.reason) == ("transport", "shadowed"), row.detail[-600:]
    assert "the implementation has iniconfig" in row.detail


STAR = {  # the implementation names what a star import brings into the property's module: AssertionError too
    "src/orders.py": "__all__ = ['line_total', 'AssertionError']\nAssertionError = ValueError\n\n\n"
                     "def line_total(line):\n    return line['qty'] * line['price'] - 5\n",
    "tests/properties/test_star.py": (
        "from orders import *\n\n\n"
        "def prop_line_total(fixture):\n    for line in fixture['lines']:\n        try:\n"
        "            assert line_total(line) == line['qty'] * line['price']\n"
        "        except ValueError:  # a line the property cannot price\n            continue\n    return True\n"),
}


@pytest.mark.parametrize("warm", [True, False])
def test_a_failing_assert_raises_the_real_assertion_error_whatever_the_module_calls_it(tmp_path, warm):
    # the rewritten assert once raised the name AssertionError from the property's globals, which a star import of the
    # implementation could make ValueError, caught by the property: a regression passed (found by a reviewing helper)
    runner = PropertyRunner(staged(tmp_path, STAR), "tests/properties/test_star.py::prop_line_total", "1",
                            Sandbox("bwrap"), timeout_seconds=20, warm=warm)
    try:
        row = runner({"lines": [{"qty": 2, "price": 3}]})
    finally:
        runner.close()
    assert (row.outcome, row.reason) == ("fail", "raise:AssertionError@tests/properties/test_star.py:7"), row.detail
    assert row.observed == "AssertionError: assert 1 == 6"


@pytest.mark.parametrize("missing, expected", [
    ("witness_no_such_package", ("transport", "missing_package")),  # a package nobody installed: nothing judged
    ("calc.sub", ("fail", "raise:ModuleNotFoundError@src/shop.py:1")),  # of the repository's own module: a failure
])
def test_a_package_the_environment_lacks_gives_no_verdict_but_a_lost_module_of_the_repository_fails(
        tmp_path, missing, expected):
    # a project whose dependency the subject does not have failed every test on base and head alike, and a real
    # regression was pre_existing, exit 0 (found gating bidict without a set-up). A module of the repository the code
    # cannot find (a patch that deleted one still imported) is no verdict too: the judge cannot tell it from a
    # package, and a hold blocks as a regression does
    files = {"src/shop.py": f"import {missing}\n\n\ndef total(xs):\n    return sum(xs)\n",
             "tests/properties/test_shop.py": "from shop import total\n\n\ndef prop_total(fixture):\n"
                                              "    return total([1, 2]) == 3\n"}
    if missing == "calc.sub":
        files["src/calc.py"] = "ONE = 1\n"  # a module, not a package: it has no sub
    runner = PropertyRunner(staged(tmp_path, files), "tests/properties/test_shop.py::prop_total", "1",
                            Sandbox("bwrap"), timeout_seconds=20)
    try:
        row = runner({})
    finally:
        runner.close()
    assert (row.outcome, row.reason) == expected, row.detail[-600:]
    if expected[0] == "transport":
        assert "witness_no_such_package" in row.detail and "setup" in row.detail


def test_a_warm_series_failing_for_another_reason_never_confirms_the_block():
    # in the series judge a property met what a cold judge does not (signal.signal off the main thread): its warm
    # replays all failed, for another reason than the first run's, and were kept as the witness's replays
    from witness_gate.model.evidence import Policy
    from witness_gate.pipeline.attempt import run_attempt
    from witness_gate.model.evaluation import Evaluation

    def cold(payload):
        return Evaluation("fail", "rounding-drift", "", 0.01, "split-cold")

    def warm(payload):
        return Evaluation("fail", "raise:ValueError@?", "", 0.01, "split-warm")

    evidence = run_attempt({"x": 1}, cold, Policy(runs=3, min_reruns=3), candidate=warm)
    assert [(r.reason, r.isolation) for r in evidence.replays] == [("rounding-drift", "split-cold")] * 3


def test_a_candidate_that_overruns_ends_its_series_and_the_next_one_is_judged(checkout, tmp_path):
    root = tmp_path / "slow"
    (root / "src").mkdir(parents=True)
    (root / "src" / "slow.py").write_text("import time\n\n\ndef wait(seconds):\n    time.sleep(seconds)\n    return 1\n")
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "p.py").write_text(
        "from slow import wait\n\ndef prop_waits(fixture):\n    return wait(fixture['s']) == 1\n")
    runner = PropertyRunner(stage_directory(root), "tests/properties/p.py::prop_waits", "1", Sandbox("bwrap"),
                            timeout_seconds=2)
    try:
        rows = [runner.candidate({"s": 0}), runner.candidate({"s": 30}), runner.candidate({"s": 0})]
    finally:
        runner.close()
    assert [(r.outcome, r.reason) for r in rows] == [("pass", None), ("transport", "timeout"), ("pass", None)], rows


PEEKS = '''
import os


def files_seen():
    seen = []
    for top in ("/input", "/repo", "/tmp", "/scratch"):
        for folder, _, names in os.walk(top):
            seen += [os.path.join(folder, name) for name in names]
    return sorted(seen)
'''


def test_no_side_of_the_implementation_sees_a_fixture_or_a_property(tmp_path):
    root = tmp_path / "peek"
    (root / "src").mkdir(parents=True)
    (root / "src" / "peek.py").write_text(PEEKS)
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "fixtures").mkdir(parents=True)
    (root / "tests" / "fixtures" / "pinned.json").write_text('{"secret": 1}')
    (root / "tests" / "properties" / "p.py").write_text(
        "from peek import files_seen\n\ndef prop_sees(fixture):\n    return ' '.join(files_seen())\n")
    runner = PropertyRunner(stage_directory(root), "tests/properties/p.py::prop_sees", "1", Sandbox("bwrap"),
                            timeout_seconds=20)
    try:
        rows = [runner({"secret": 1}), runner.candidate({"secret": 1}), runner.candidate({"secret": 2})]
    finally:
        runner.close()
    assert [row.isolation for row in rows] == ["split-cold", "split-warm", "split-warm"]
    for row in rows:
        assert row.outcome == "fail" and row.reason.split() == ["/repo/src/peek.py"], row


# what oracle values crossing by data and lent callables must never do (a reviewer's attacks, session 16)
LENT_IMPL = '''
import gc
import sys


def notify(cb, x):
    cb(x * 2)


def is_text(path):
    return False  # a regression: the property must catch it


def call_number(n, *args):  # calls the judge's callable number n, handed over or not
    server = sys.modules["witness_gate.sandbox.subject.server"]
    live = next(o for o in gc.get_objects() if type(o) is server.Server)
    return server.JudgeCallable(live, n)(*args)
'''

LENT_PROPS = '''
import pathlib
from unittest import mock

from impl import call_number, is_text, notify


def prop_magicmock(fixture):
    cb = mock.MagicMock()
    notify(cb, 5)
    cb.assert_called_once_with(10)


class Here(pathlib.Path):  # a project's own path class (3.12: `pass` is enough)
    _flavour = type(pathlib.Path())._flavour


def prop_all_text(fixture):
    return all(map(is_text, [Here("a.txt")]))


def _broken():
    yield 1
    raise TypeError("an iterator that breaks while it is read")


def prop_never_handed(fixture):
    secret = []
    try:
        notify(secret.append, _broken())  # refused before anything is sent: the iterator broke while it was read
    except TypeError:
        pass
    call_number(1, "reached")
    return secret == [] or f"secret {secret}"
'''


def evaluate_lent(tmp_path, name):
    checkout = staged(tmp_path, {"src/impl.py": LENT_IMPL, "tests/properties/test_a.py": LENT_PROPS})
    runner = PropertyRunner(checkout, f"tests/properties/test_a.py::{name}", "1", Sandbox("bwrap"), timeout_seconds=20)
    try:
        return runner({})
    finally:
        runner.close()


def test_an_oracle_s_magicmock_is_lent_as_a_callable_not_drained_as_an_iterator(tmp_path):
    # found by a reviewer of b2fb4ab: MagicMock has __next__/__iter__, so it crosses as iter([]); base and head fail alike at the call
    # (raise:TypeError@src/...), so a head regression in what it passes the mock becomes pre_existing
    row = evaluate_lent(tmp_path, "prop_magicmock")
    assert (row.outcome, row.reason) == ("pass", None), row.detail[-300:]


def test_an_oracle_s_own_path_class_cannot_end_the_property_s_loop(tmp_path):
    # found by a reviewer of b2fb4ab: _other's next(...) over three path kinds raises StopIteration for any other PurePath; it escapes
    # Handle.__call__ and ends map() silently, so all(...) of nothing is True and the regression passes
    row = evaluate_lent(tmp_path, "prop_all_text")
    assert row.outcome == "fail", (row.outcome, row.reason)


def test_a_callable_the_implementation_was_never_handed_cannot_be_called_back(tmp_path):
    # found by a reviewer of 54ce191: a callable numbered during an encode that then failed stays lent; the subject guesses its number
    row = evaluate_lent(tmp_path, "prop_never_handed")
    assert (row.outcome, row.reason) == ("transport", "wire:unexpected"), (row.outcome, row.reason)


MALFORMED_IMPL = '''
import sys


def evil():
    server = sys.modules["witness_gate.sandbox.subject.server"]
    original = server.Server.encode

    def encode(self, value):
        return {"J": []} if value == "evil" else original(self, value)
    server.Server.encode = encode  # its answer: a form only the judge may send
    return "evil"
'''

MALFORMED_PROPS = '''
from impl import evil


def prop_catches_a_malformed_answer(fixture):
    try:
        evil()
    except Exception:
        pass
    return True
'''


def test_a_malformed_answer_is_no_verdict_even_when_the_property_catches_it(tmp_path):
    # found by a reviewer: a value the judge could not decode raised a WireFault the property could catch (pass)
    checkout = staged(tmp_path, {"src/impl.py": MALFORMED_IMPL, "tests/properties/test_a.py": MALFORMED_PROPS})
    runner = PropertyRunner(checkout, "tests/properties/test_a.py::prop_catches_a_malformed_answer", "1",
                            Sandbox("bwrap"), timeout_seconds=20)
    try:
        row = runner({})
    finally:
        runner.close()
    assert (row.outcome, row.reason) == ("transport", "wire:malformed"), (row.outcome, row.reason, row.detail[-300:])
