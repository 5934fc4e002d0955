#!/usr/bin/env bash
# A published project as its maintainers would adopt the gate: the project as published on `main`, then the
# .witness.yml that `witness-gate init` writes for it, committed on top; no test file edited.
# Usage: examples/projects/make_repo.sh PROJECT DEST   (PROJECT: a folder beside this script; DEST must not exist)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=${1:?usage: make_repo.sh PROJECT DEST}
dest=${2:?usage: make_repo.sh PROJECT DEST}
if [ ! -d "$here/$project" ]; then
  echo "make_repo.sh: no project $project beside this script (there are: $(cd "$here" && ls -d */ | tr -d /))" >&2
  exit 2
fi
if [ -e "$dest" ]; then
  echo "make_repo.sh: $dest already exists; pick a new directory" >&2
  exit 2
fi
gate=${WITNESS_GATE:-witness-gate}
mkdir -p "$dest"
cp -R "$here/$project/." "$dest/"
cd "$dest"
git init -q -b main
git config user.name "A maintainer"
git config user.email "maintainer@example.invalid"
git add -A
git commit -q -m "$project as published"
$gate init --repo . >/dev/null
git add .witness.yml
git commit -q -m "gate with witness-gate (the .witness.yml init wrote)"
echo "$dest: $project on main, with the .witness.yml witness-gate init wrote"
