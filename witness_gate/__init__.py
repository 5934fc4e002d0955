"""witness-gate: shrink, replay and classify a failing property before anything is frozen."""

import os as _os
import sys as _sys

# `python -m witness_gate` inside a checkout puts that checkout first on sys.path, so its own
# argparse.py or tempfile.py would run on the host: start again with -P (no working directory on
# sys.path) before anything else is imported. A checkout's own witness_gate/ package would still win
# that first import: type the console script `witness-gate` inside untrusted checkouts.
if (_sys.argv[:1] == ["-m"] and not _sys.flags.safe_path and _sys.path
        and _os.path.realpath(_sys.path[0] or ".") == _os.path.realpath(".")):
    _os.execv(_sys.executable, [_sys.executable, "-P", *_sys.orig_argv[1:]])

from witness_gate.contracts import contract  # noqa: E402

__all__ = ["contract"]
__version__ = "0.1.0"
