"""Inside the set-up sandbox: a loopback HTTP proxy address that leads to the host's egress proxy socket.

The sandbox has its own network namespace with nothing but loopback. Tools such as pip speak to
an HTTP proxy over TCP, so this forwards 127.0.0.1:<port> to the unix socket bound in from the
host (`witness_gate.setup.egress`), sets HTTPS_PROXY/HTTP_PROXY, and runs the set-up command.

With `--tar-to-fd N` (under bubblewrap, where the set-up writes into a size-capped tmpfs and can
reach no host directory), once the command has exited well every other process of the sandbox is
killed and the environment is written as a tar stream to descriptor N, which only this shim holds;
the host reads it within its own limits (`witness_gate.setup.keep`).

Usage: python -P -s <gate>/witness_gate/setup/netshim.py [--tar-to-fd N] <socket> -- <command> [args...]
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading


def _pipe(a: socket.socket, b: socket.socket) -> None:
    try:
        while chunk := a.recv(65536):
            b.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _forward(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
    _pipe(client, upstream)


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_forward, args=(client, path), daemon=True).start()


def _send_out(source: str, fd: int) -> int:
    """Stop whatever the set-up left running, then stream its environment to the host."""
    try:
        os.kill(-1, signal.SIGKILL)  # every other process of this pid namespace: nothing writes while we send
    except OSError:
        pass
    try:
        with os.fdopen(fd, "wb") as out, tarfile.open(fileobj=out, mode="w|") as tar:
            tar.add(source, arcname=".")
    except (OSError, tarfile.TarError, RecursionError) as exc:
        print(f"witness-gate set-up: cannot hand over the environment: {exc}", file=sys.stderr)
        return 125
    return 0


def main(argv: list[str]) -> int:
    send_fd = None
    if argv[:1] == ["--tar-to-fd"] and len(argv) > 1:
        send_fd, argv = int(argv[1]), argv[2:]
        os.set_inheritable(send_fd, False)  # the set-up command never gets it
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    path, command = argv[0], argv[2:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = {**os.environ, "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "https_proxy": proxy, "http_proxy": proxy,
           "NO_PROXY": "", "no_proxy": ""}
    try:
        code = subprocess.call(command, env=env)
    except OSError as exc:
        print(f"witness-gate set-up: cannot start {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127
    if code == 0 and send_fd is not None:
        return _send_out(os.environ["WITNESS_ENV"], send_fd)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
