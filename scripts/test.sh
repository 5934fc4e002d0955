#!/usr/bin/env bash
# Set up with the test tools, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
export PATH="$PWD/.venv/bin:$PATH"  # the tests paste `witness-gate …` commands as a reviewer would
# one worker a core (WITNESS_TEST_WORKERS=0: all in this process), a test file's tests together on one worker
python -m pytest -n "${WITNESS_TEST_WORKERS:-auto}" --dist loadfile "$@"
