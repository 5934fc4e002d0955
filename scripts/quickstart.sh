#!/usr/bin/env bash
# Set up, build the bundled example as a git repository, and run the whole gate on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash examples/orders/make_repo.sh "$work/orders" >/dev/null
echo "example repository: main (base) and agent-patch (head), built in $work/orders"
echo "\$ .venv/bin/witness-gate run --repo $work/orders --base main --head agent-patch"
echo
set +e
.venv/bin/witness-gate run --repo "$work/orders" --base main --head agent-patch --out .artifacts/quickstart
code=$?
set -e
echo
case $code in
  0) echo "quickstart: the gate found nothing to block (exit 0)" ;;
  1) echo "quickstart: the gate blocks this head (exit 1), as it should: the patch has a regression" ;;
  3) echo "quickstart: the gate wants a person (exit 3)" ;;
  *) echo "quickstart: the gate could not run (exit $code)"; exit "$code" ;;
esac
echo "records, witnesses and the proposed freeze are under .artifacts/quickstart/"
