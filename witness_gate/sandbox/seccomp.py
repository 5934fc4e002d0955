"""A seccomp filter for the sandbox: what no tmpfs size caps, and what would tell evaluations apart.

- `memfd_create`, `memfd_secret` and System V `shmget` make memory that counts against no
  filesystem's size and, once unmapped, no address-space limit: they fail with EPERM.
- `statx` is the only way to read a file's birth time, which cannot be reset: the checkout is
  staged once, so "born less than a second ago" would tell the first evaluation from the rest. It
  fails with ENOSYS, and C libraries, coreutils, libuv and Rust fall back to stat(2), which has no
  birth time. io_uring, which could run a statx of its own, fails with ENOSYS too.
- the host's page cache is shared by every evaluation: whether a page of /usr is already in memory
  (`preadv2` with RWF_NOWAIT, `mincore`, `cachestat`) would tell the first evaluation from the next,
  and `readahead`/`fadvise` would set it: they fail with ENOSYS (plain reads fall back to preadv).
- the kernel keyring (`add_key`, `request_key`, `keyctl`) is shared by every evaluation of the
  sandbox uid, so a key left by one is seen (or counted) by the next: it fails with EPERM.
- every call of a foreign ABI (x32, i386 on x86_64) fails with EPERM.
- and, in an evaluation, what one process can notice of another through a file both see: the checkout, the gate and
  /usr are the same files in every sandbox, so a byte-range lock, a `flock` or a lease one subject holds on them is
  seen by the next, and subjects alive at once could count each other; an inotify, fanotify or dnotify watch would
  see the others open them. `flock` and fcntl's lock, lease and notify commands fail with ENOLCK, inotify with
  ENOSYS (watchers fall back to polling), fanotify with EPERM. A set-up is no evaluation: its tools lock their caches.
Everything else goes through. bubblewrap loads it with `--seccomp FD` just before it starts the
process.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

_LD_ABS_W, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
X32_BIT = 0x40000000

# machine -> (AUDIT_ARCH, {name: syscall number}); the errno each call gets is in ERRNO
REFUSED = {
    "x86_64": (0xC000003E, {"shmget": 29, "add_key": 248, "request_key": 249, "keyctl": 250,
                            "mincore": 27, "readahead": 187, "fadvise64": 221, "preadv2": 327, "pwritev2": 328,
                            "cachestat": 451, "memfd_create": 319, "memfd_secret": 447, "statx": 332,
                            "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}),
    "aarch64": (0xC00000B7, {"shmget": 194, "add_key": 217, "request_key": 218, "keyctl": 219,
                             "mincore": 232, "readahead": 213, "fadvise64": 223, "preadv2": 286, "pwritev2": 287,
                             "cachestat": 451, "memfd_create": 279, "memfd_secret": 447, "statx": 291,
                             "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}),
}
# an evaluation's too: (fcntl's number, the commands refused), and the calls refused outright
NOTICING = {
    "x86_64": (72, {"flock": 73, "inotify_init": 253, "inotify_init1": 294, "fanotify_init": 300}),
    "aarch64": (25, {"flock": 32, "inotify_init1": 26, "fanotify_init": 262}),
}
# F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY
FCNTL_REFUSED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
_FCNTL_CMD = 24  # offset of args[1]'s low word in struct seccomp_data (little-endian; the kernel reads an int)
ERRNO = {"flock": errno.ENOLCK, "fanotify_init": errno.EPERM, "inotify_init": errno.ENOSYS,
         "inotify_init1": errno.ENOSYS}
ERRNO |= {name: errno.ENOSYS for name in ("statx", "io_uring_setup", "io_uring_enter", "io_uring_register",
                                          "mincore", "readahead", "fadvise64", "preadv2", "pwritev2",
                                          "cachestat")}  # the rest: EPERM


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None, *, evaluation: bool = True) -> bytes | None:
    """The compiled filter for this machine (`evaluation`: with NOTICING too), or None where the syscall numbers are
    not known here."""
    machine = machine or platform.machine()
    if machine not in REFUSED:
        return None
    arch, calls = REFUSED[machine]
    fcntl, noticing = NOTICING[machine]
    calls = {**calls, **noticing} if evaluation else calls
    deny = _ERRNO | errno.EPERM
    ops = [_op(_LD_ABS_W, _ARCH), _op(_JEQ, arch, 1, 0), _op(_RET, deny), _op(_LD_ABS_W, _NR)]
    if machine == "x86_64":
        ops += [_op(_JGE, X32_BIT, 0, 1), _op(_RET, deny)]
    for name, number in sorted(calls.items(), key=lambda item: item[1]):
        ops += [_op(_JEQ, number, 0, 1), _op(_RET, _ERRNO | ERRNO.get(name, errno.EPERM))]
    if evaluation:
        block = [_op(_LD_ABS_W, _FCNTL_CMD)]
        for command in FCNTL_REFUSED:
            block += [_op(_JEQ, command, 0, 1), _op(_RET, _ERRNO | errno.ENOLCK)]
        ops += [_op(_JEQ, fcntl, 0, len(block)), *block]  # any other command: on to the allow below
    ops.append(_op(_RET, _ALLOW))
    return b"".join(ops)


def pipe_of(filter_bytes: bytes) -> int:
    """A readable fd holding the filter, for bubblewrap's --seccomp (the caller closes it)."""
    read, write = os.pipe()
    os.write(write, filter_bytes)
    os.close(write)
    return read
