#!/usr/bin/env bash
# Build the example as a git repository: `main` holds base/, branch `agent-patch` adds head/ on top.
# Usage: examples/orders/make_repo.sh DEST   (DEST must not exist yet)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../base_and_head.sh" orders "${1:-}" "Example Shop" "shop@example.invalid" \
  "Shop: orders, rates and their properties"
