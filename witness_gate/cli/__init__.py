"""`witness-gate`: argument parsing, the local gate (check, run, replay, init) and what a person reads."""
