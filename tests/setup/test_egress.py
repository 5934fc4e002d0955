"""The set-up phase's egress proxy: it tunnels to the package index and to nothing else."""

import os
import socket
import stat
import threading

import pytest

from conftest import TcpServer, host_ip
from witness_gate.setup.egress import DEFAULT_INDEX_HOSTS, EgressProxy, Upstream, index_hosts, upstream_proxy


def _echo(conn: socket.socket) -> None:
    with conn:
        while data := conn.recv(4096):
            conn.sendall(data)


@pytest.fixture
def echo():
    """A TCP echo server on every host address."""
    server = TcpServer(_echo)
    yield server.port, server.reached
    server.close()


def ask(path, request: bytes) -> tuple[str, socket.socket]:
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(10)
    client.connect(str(path))
    client.sendall(request)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = client.recv(1)
        if not chunk:
            break
        head += chunk
    return head.decode(), client


def connect(path, authority: str) -> tuple[str, socket.socket]:
    return ask(path, f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())


def test_an_allowed_host_gets_a_tunnel_both_ways(tmp_path, echo):
    port, reached = echo
    ip = host_ip()
    if ip.startswith("127."):
        pytest.skip("this machine has no address but loopback")
    with EgressProxy(tmp_path / "egress.sock", (f"{ip}:{port}",)) as proxy:
        head, client = connect(tmp_path / "egress.sock", f"{ip}:{port}")
        with client:
            assert head.startswith("HTTP/1.1 200")
            client.sendall(b"ping through the tunnel")
            assert client.recv(100) == b"ping through the tunnel"
    assert len(reached) == 1
    assert proxy.log == [f"tunnel {ip}:{port}"]


@pytest.mark.parametrize("authority, why", [
    ("example.org:443", "example.org:443 is not a package index the set-up may reach"),
    ("pypi.org:22", "pypi.org:22 is not a package index"),  # the index's name on another port
    ("pypi.org", "'pypi.org' is not host:port"),
])
def test_anything_but_an_allowed_host_and_port_is_refused(tmp_path, authority, why):
    with EgressProxy(tmp_path / "egress.sock", DEFAULT_INDEX_HOSTS) as proxy:
        head, client = connect(tmp_path / "egress.sock", authority)
        client.close()
    assert head.startswith("HTTP/1.1 403")
    assert why in proxy.log[0]


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "[::1]", "169.254.169.254", "0.0.0.0"])
def test_the_machine_itself_is_refused_even_when_allowed_by_name(tmp_path, echo, name):
    # an operator who allow-lists a name that resolves here must not open the worker's Redis
    port, reached = echo
    host = name.strip("[]")
    with EgressProxy(tmp_path / "egress.sock", (f"{host}:{port}" if ":" not in host else host,)) as proxy:
        head, client = connect(tmp_path / "egress.sock", f"{name}:{port}")
        client.close()
    if ":" in host:  # "::1" cannot be written as host:port in the list: refused by the list itself
        assert "is not a package index" in proxy.log[0]
    else:
        assert "resolves to this machine or a local-only address" in proxy.log[0]
    assert head.startswith("HTTP/1.1 403")
    assert reached == []


def test_plain_http_requests_are_not_forwarded(tmp_path):
    with EgressProxy(tmp_path / "egress.sock", DEFAULT_INDEX_HOSTS) as proxy:
        head, client = ask(tmp_path / "egress.sock", b"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
        client.close()
    assert head.startswith("HTTP/1.1 403")
    assert "only CONNECT (HTTPS) leaves the sandbox, not GET" in proxy.log[0]


def test_garbage_is_refused_and_the_proxy_keeps_serving(tmp_path):
    with EgressProxy(tmp_path / "egress.sock", ("example.org",)) as proxy:
        head, client = ask(tmp_path / "egress.sock", b"\xff\xfe\r\n\r\n")
        client.close()
        assert head.startswith("HTTP/1.1 403")
        head, client = connect(tmp_path / "egress.sock", "pypi.org:443")
        client.close()
        assert head.startswith("HTTP/1.1 403")
    assert len(proxy.log) == 2


def test_only_its_owner_may_connect_and_it_is_gone_when_closed(tmp_path):
    path = tmp_path / "egress.sock"
    with EgressProxy(path, DEFAULT_INDEX_HOSTS, owner=os.geteuid()):
        st = os.stat(path)
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    assert not path.exists()


@pytest.mark.parametrize("value, hosts", [
    (None, DEFAULT_INDEX_HOSTS),
    ("mirror.example.com, files.example.com:8443", ("mirror.example.com", "files.example.com:8443")),
    ("", ()),  # set but empty: the set-up may reach nothing
])
def test_the_operator_chooses_the_hosts(value, hosts):
    environ = {} if value is None else {"WITNESS_SETUP_HOSTS": value}
    assert index_hosts(environ) == hosts


def test_connections_at_once_are_bounded(tmp_path, monkeypatch):
    # a set-up cannot use up the worker's file descriptors through the proxy
    import witness_gate.setup.egress as egress
    monkeypatch.setattr(egress, "MAX_TUNNELS", 2)
    with EgressProxy(tmp_path / "egress.sock", DEFAULT_INDEX_HOSTS) as proxy:
        held = []
        for _ in range(2):  # two clients that never finish their request hold both slots
            client = socket.socket(socket.AF_UNIX)
            client.connect(str(tmp_path / "egress.sock"))
            held.append(client)
        third = socket.socket(socket.AF_UNIX)  # answered at once, before it could even ask
        third.settimeout(10)
        third.connect(str(tmp_path / "egress.sock"))
        with third:
            assert third.recv(100).startswith(b"HTTP/1.1 503")
        for client in held:
            client.close()
    assert "refused: too many connections at once" in proxy.log


@pytest.fixture
def upstream(echo):
    """The host's own HTTP proxy: it records each CONNECT and tunnels every one to the echo server."""
    port, _ = echo
    asked = []

    def tunnel(conn: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(1)
        asked.append(head.decode())
        if "Proxy-Authorization: Basic dXNlcjpwQHNz" not in head.decode():  # user:p@ss
            conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
            conn.close()
            return
        far = socket.create_connection(("127.0.0.1", port))
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        for a, b in ((conn, far), (far, conn)):
            threading.Thread(target=lambda a=a, b=b: [b.sendall(d) for d in iter(lambda: a.recv(4096), b"")],
                             daemon=True).start()

    server = TcpServer(tunnel, host="127.0.0.1")
    yield server.port, asked
    server.close()


def test_a_host_behind_its_own_proxy_chains_through_it_with_its_credentials(tmp_path, upstream):
    # the index's name need not resolve here: the host's proxy resolves it where it stands
    port, asked = upstream
    chain = upstream_proxy({"HTTPS_PROXY": f"http://user:p%40ss@127.0.0.1:{port}"})
    with EgressProxy(tmp_path / "egress.sock", ("index.invalid",), upstream=chain) as proxy:
        head, client = connect(tmp_path / "egress.sock", "index.invalid:443")
        with client:
            assert head.startswith("HTTP/1.1 200")
            client.sendall(b"through two proxies")
            assert client.recv(100) == b"through two proxies"
        head, client = connect(tmp_path / "egress.sock", "example.org:443")  # the list still applies
        client.close()
        assert head.startswith("HTTP/1.1 403")
    assert [a.split("\r\n")[0] for a in asked] == ["CONNECT index.invalid:443 HTTP/1.1"]
    assert proxy.log[0] == "tunnel index.invalid:443"


def test_a_refusal_by_the_hosts_proxy_is_a_502_that_says_so(tmp_path, upstream):
    port, _ = upstream
    chain = upstream_proxy({"https_proxy": f"127.0.0.1:{port}"})  # no credentials: the proxy wants some
    with EgressProxy(tmp_path / "egress.sock", ("index.invalid",), upstream=chain) as proxy:
        head, client = connect(tmp_path / "egress.sock", "index.invalid:443")
        client.close()
    assert head.startswith("HTTP/1.1 502")
    assert "answered 'HTTP/1.1 407 Proxy Authentication Required'" in proxy.log[0]


@pytest.mark.parametrize("value, expected", [
    ({}, None),
    ({"HTTPS_PROXY": "http://proxy.corp:3128"}, Upstream("proxy.corp", 3128)),
    ({"https_proxy": "proxy.corp"}, Upstream("proxy.corp", 80)),
])
def test_the_hosts_proxy_is_read_from_its_environment(value, expected):
    assert upstream_proxy(value) == expected


def test_a_proxy_the_egress_proxy_cannot_chain_to_is_an_error():
    with pytest.raises(ValueError, match="can chain only to an http:// proxy"):
        upstream_proxy({"HTTPS_PROXY": "socks5://proxy.corp:1080"})
