#!/usr/bin/env bash
# Build the Node example as a git repository: `main` holds base/, branch `agent-patch` adds head/ on top.
# Usage: examples/invoices/make_repo.sh DEST   (DEST must not exist yet; the gate needs node on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: make_repo.sh DEST}
if [ -e "$dest" ]; then
  echo "make_repo.sh: $dest already exists; pick a new directory" >&2
  exit 2
fi
mkdir -p "$dest"
cp -R "$here/base/." "$dest/"
cd "$dest"
git init -q -b main
git config user.name "Example Books"
git config user.email "books@example.invalid"
git add -A
git commit -q -m "Books: invoices, rates and their properties (Node)"
git checkout -q -b agent-patch
cp -R "$here/head/." "$dest/"
git add -A
git commit -q -m "Agent patch: bulk discount and a quote cache fast path"
echo "$dest: base = main, head = agent-patch"
