"""The set-up phase's only way out: a CONNECT proxy on a unix socket that reaches the package index and nothing else.

It runs on the host (trusted) and serves one set-up at a time. The sandbox has no network of its
own; a forwarder inside it (`witness_gate.setup.netshim`) hands TCP connections to this socket. Only
`CONNECT host:port` to an allowed host is tunnelled — TLS stays end to end, so the proxy sees no
content and adds no credentials — and a host whose address is the machine itself (loopback,
link-local such as a cloud metadata service, unspecified, multicast) is refused even when
allowed by name, so the set-up cannot reach the worker's Redis, database or anything on 127.0.0.1. A host that
reaches the index only through its own proxy (HTTPS_PROXY) gets its tunnels opened through that.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import selectors
import socket
import threading
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_INDEX_HOSTS = ("pypi.org", "files.pythonhosted.org")
HOSTS_ENV = "WITNESS_SETUP_HOSTS"
UPSTREAM_ENV = ("HTTPS_PROXY", "https_proxy")  # the host's own way to the index, if it has to use one
MAX_HEADER = 16 * 1024
CONNECT_TIMEOUT = 20.0
MAX_TUNNELS = 32  # at once; each holds two of the worker's file descriptors


def index_hosts(environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """The hosts a set-up may reach: the operator's choice (WITNESS_SETUP_HOSTS), never the repository's."""
    raw = (environ if environ is not None else os.environ).get(HOSTS_ENV)
    if raw is None:
        return DEFAULT_INDEX_HOSTS
    return tuple(h.strip().lower() for h in raw.split(",") if h.strip())


@dataclass(frozen=True)
class Upstream:
    """The host's HTTP proxy: tunnels are opened through it; its credentials never enter the sandbox."""

    host: str
    port: int
    authorization: str = ""  # "Basic …" when the proxy URL carries user:password


def upstream_proxy(environ: dict[str, str] | None = None) -> Upstream | None:
    """The host's HTTPS_PROXY, if set: where the egress proxy opens its tunnels."""
    environ = os.environ if environ is None else environ
    raw = next((environ[k] for k in UPSTREAM_ENV if environ.get(k)), "")
    if not raw:
        return None
    url = urllib.parse.urlsplit(raw if "://" in raw else f"http://{raw}")
    if url.scheme != "http" or not url.hostname:
        raise ValueError(f"HTTPS_PROXY={raw!r}: the egress proxy can chain only to an http:// proxy with a host")
    authorization = ""
    if url.username:
        pair = f"{urllib.parse.unquote(url.username)}:{urllib.parse.unquote(url.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return Upstream(url.hostname, url.port or 80, authorization)


def _allowed(entries: Iterable[str]) -> set[tuple[str, int]]:
    """"host" means host:443; "host:port" allows that port."""
    out = set()
    for entry in entries:
        host, _, port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        out.add((host.lower(), int(port)) if port else (entry.lower(), 443))
    return out


def _forbidden_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast


@dataclass
class EgressProxy:
    """Serve CONNECT tunnels to `hosts` on a unix socket until closed; a log of what was asked."""

    socket_path: Path
    hosts: tuple[str, ...] = DEFAULT_INDEX_HOSTS
    owner: int | None = None  # the sandbox uid, the only one who may connect
    upstream: Upstream | None = None  # None: straight to the index
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._allowed = _allowed(self.hosts)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.socket_path))
        if self.owner is not None:
            os.chown(self.socket_path, self.owner, -1)
        os.chmod(self.socket_path, 0o600)
        self._server.listen(64)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_TUNNELS)
        self._thread = threading.Thread(target=self._serve, name="witness-egress", daemon=True)
        self._thread.start()

    def __enter__(self) -> "EgressProxy":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        try:
            self._server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._server.close()
        self._thread.join(timeout=5)
        try:
            self.socket_path.unlink()
        except FileNotFoundError:
            pass

    def _note(self, line: str) -> None:
        with self._lock:
            self.log.append(line)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                self._note("refused: too many connections at once")
                _answer(client, 503, f"more than {MAX_TUNNELS} connections at once")
                client.close()
                continue
            threading.Thread(target=self._handle_one, args=(client,), daemon=True).start()

    def _handle_one(self, client: socket.socket) -> None:
        try:
            self._handle(client)
        finally:
            self._slots.release()

    def _handle(self, client: socket.socket) -> None:
        with client:
            client.settimeout(CONNECT_TIMEOUT)
            try:
                head = _read_head(client)
            except (OSError, ValueError):
                return
            target, problem = self._check(head)
            if problem:
                self._note(f"refused {target or '?'}: {problem}")
                _answer(client, 403, problem)
                return
            host, port, address = target
            try:
                if self.upstream is None:
                    upstream = socket.create_connection((address, port), timeout=CONNECT_TIMEOUT)
                else:
                    upstream = _through(self.upstream, host, port)
            except (OSError, ValueError) as exc:
                self._note(f"failed {host}:{port}: {exc}")
                _answer(client, 502, f"cannot reach {host}:{port}: {exc}")
                return
            self._note(f"tunnel {host}:{port}")
            with upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                client.settimeout(None)
                upstream.settimeout(None)
                _pipe(client, upstream, self._stop)

    def _check(self, head: bytes) -> tuple[tuple[str, int, str] | None, str]:
        """(host, port, address) to tunnel to, or why not."""
        try:
            method, authority, _version = head.split(b"\r\n", 1)[0].decode("ascii").split(" ")
        except (UnicodeDecodeError, ValueError):
            return None, "not an HTTP request line"
        if method != "CONNECT":
            return None, f"only CONNECT (HTTPS) leaves the sandbox, not {method}"
        host, _, port_text = authority.rpartition(":")
        host = host.strip("[]").lower()
        if not port_text.isdigit():
            return None, f"{authority!r} is not host:port"
        port = int(port_text)
        shown = f"{host}:{port}"
        if (host, port) not in self._allowed:
            return None, (f"{shown} is not a package index the set-up may reach "
                          f"(allowed: {', '.join(sorted(f'{h}:{p}' for h, p in self._allowed))}; "
                          f"the operator sets {HOSTS_ENV})")
        if self.upstream is not None:
            # the host's proxy resolves the name where it stands; only the machine itself is refused here
            if host == "localhost" or (_is_ip(host) and _forbidden_address(host)):
                return None, f"{host} is this machine"
            return (host, port, host), ""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            return None, f"cannot resolve {host}: {exc}"
        addresses = [info[4][0] for info in infos]
        if not addresses or any(_forbidden_address(a) for a in addresses):
            return None, f"{host} resolves to this machine or a local-only address ({', '.join(sorted(set(addresses)))})"
        return (host, port, addresses[0]), ""


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def _through(upstream: Upstream, host: str, port: int) -> socket.socket:
    """A tunnel to host:port opened through the host's own proxy."""
    sock = socket.create_connection((upstream.host, upstream.port), timeout=CONNECT_TIMEOUT)
    request = f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n"
    if upstream.authorization:
        request += f"Proxy-Authorization: {upstream.authorization}\r\n"
    try:
        sock.sendall((request + "\r\n").encode("ascii"))
        status = _read_head(sock).split(b"\r\n", 1)[0].decode("ascii", errors="replace")
    except (OSError, ValueError):
        sock.close()
        raise
    if status.split(" ")[1:2] != ["200"]:
        sock.close()
        raise OSError(f"the host's proxy {upstream.host}:{upstream.port} answered {status!r}")
    return sock


def _read_head(client: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        if not chunk:
            raise ValueError("closed before the request ended")
        data += chunk
        if len(data) > MAX_HEADER:
            raise ValueError("request head too long")
    return data


def _answer(client: socket.socket, status: int, why: str) -> None:
    reason = {403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable"}[status]
    body = (why + "\n").encode("utf-8", errors="replace")
    try:
        client.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n"
                       f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    except OSError:
        pass


def _pipe(a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
    """Copy both ways until either side closes."""
    peer = {a: b, b: a}
    with selectors.DefaultSelector() as selector:
        selector.register(a, selectors.EVENT_READ)
        selector.register(b, selectors.EVENT_READ)
        while not stop.is_set():
            for key, _ in selector.select(timeout=1.0):
                try:
                    chunk = key.fileobj.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                try:
                    peer[key.fileobj].sendall(chunk)
                except OSError:
                    return
