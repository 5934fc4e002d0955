"""The shrinker's moves: structure (empty, delete, lift), values (simpler, sorted) and numbers (toward zero)."""
