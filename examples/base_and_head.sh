#!/usr/bin/env bash
# An example as a git repository: `main` holds EXAMPLE/base/, branch `agent-patch` adds EXAMPLE/head/ on top.
# Usage: examples/base_and_head.sh EXAMPLE DEST AUTHOR EMAIL MESSAGE   (each example's make_repo.sh calls it)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
example=${1:?usage: base_and_head.sh EXAMPLE DEST AUTHOR EMAIL MESSAGE}
dest=${2:-}
if [ -z "$dest" ]; then
  echo "usage: examples/$example/make_repo.sh DEST   (DEST must not exist yet)" >&2
  exit 2
fi
if [ -e "$dest" ]; then
  echo "make_repo.sh: $dest already exists; pick a new directory" >&2
  exit 2
fi
mkdir -p "$dest"
cp -R "$here/$example/base/." "$dest/"
cd "$dest"
git init -q -b main
git config user.name "$3"
git config user.email "$4"
git add -A
git commit -q -m "$5"
git checkout -q -b agent-patch
cp -R "$here/$example/head/." "$dest/"
git add -A
git commit -q -m "Agent patch: bulk discount and a quote cache fast path"
echo "$dest: base = main, head = agent-patch"
