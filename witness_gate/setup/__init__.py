"""The set-up phase: a head's dependencies installed in the sandbox, its only way out the egress proxy."""
