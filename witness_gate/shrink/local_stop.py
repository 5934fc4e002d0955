"""Article 000's shrink loop: step while the smaller fixture still fails, stop at a local stop."""


def shrink_until_local_stop(fixture, fails, shrink_once, max_steps=32):
    """Article 000's loop; None means the current fixture does not fail (callers hold)."""
    current = fixture
    for _ in range(max_steps):
        if not fails(current):
            return None
        nxt = shrink_once(current)
        if nxt is None or nxt == current or not fails(nxt):
            return current
        current = nxt
    return current
