#!/usr/bin/env bash
# Build the Node example as a git repository: `main` holds base/, branch `agent-patch` adds head/ on top.
# Usage: examples/invoices/make_repo.sh DEST   (DEST must not exist yet; the gate needs node on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../base_and_head.sh" invoices "${1:-}" "Example Books" "books@example.invalid" \
  "Books: invoices, rates and their properties (Node)"
