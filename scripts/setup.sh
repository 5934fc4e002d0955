#!/usr/bin/env bash
# Install what witness-gate needs on a fresh machine: bubblewrap and git (Debian), the package and its
# locked dependencies in .venv (pip).
# Usage: scripts/setup.sh [--dev]   (--dev adds the test tools)
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v git >/dev/null 2>&1 || need+=(git)
# the sandbox's interpreter installs a head's `setup.requirements` with its own pip
if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then need+=(python3-pip); fi
if [ "${1:-}" = "--dev" ]; then
  # the admin pages are tested in a real headless browser
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
  # the Node example (examples/invoices) is gated end to end
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  # the end-to-end tests need a Redis at 127.0.0.1:6379
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
fi
if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${need[*]} with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: please install ${need[*]} (no apt-get here); the gate warns and runs without a sandbox" >&2
  fi
fi

if [ "${1:-}" = "--dev" ] && ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "setup: starting a Redis on 127.0.0.1:6379 for the tests" >&2
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
fi

# the project's own virtual environment, from a lock of exact versions with hashes (requirements/*.lock):
# what the tests and benchmarks ran with, not whatever is newest on PyPI today
lock=requirements/gate.lock extra=""
[ "${1:-}" = "--dev" ] && lock=requirements/dev.lock extra="[dev]"
[ -x .venv/bin/python ] || python3 -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --require-hashes --no-deps -r "$lock"
"${pip[@]}" --no-deps -e ".${extra}"
echo "setup: done; the gate is .venv/bin/witness-gate (or: . .venv/bin/activate)" >&2
