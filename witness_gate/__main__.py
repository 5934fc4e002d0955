"""Entry point: `python -m witness_gate`."""

import sys

from witness_gate.cli.main import main

sys.exit(main())
