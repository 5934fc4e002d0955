"""Hypothesis strategies for JSON payloads, shared by the canonical-form and shrinker tests."""

from hypothesis import strategies as st

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=5), children, max_size=6),
    max_leaves=30,
)
