"""A seccomp filter for the sandbox: memory-backed files that no tmpfs size would cap are refused.

`memfd_create` and System V shared memory make memory that counts against no filesystem's size and,
once unmapped, no address-space limit: one evaluation could fill the host's memory with them. The
filter makes those calls fail with EPERM (code that wants them falls back or fails visibly), refuses
every call of a foreign ABI (x32, i386 on x86_64), and lets everything else through. bubblewrap loads
it with `--seccomp FD` just before it starts the evaluation.
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

# machine -> (AUDIT_ARCH, {name: syscall number})
REFUSED = {
    "x86_64": (0xC000003E, {"shmget": 29, "memfd_create": 319, "memfd_secret": 447}),
    "aarch64": (0xC00000B7, {"shmget": 194, "memfd_create": 279, "memfd_secret": 447}),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine, or None where the syscall numbers are not known here."""
    machine = machine or platform.machine()
    if machine not in REFUSED:
        return None
    arch, calls = REFUSED[machine]
    numbers = sorted(calls.values())
    deny = _ERRNO | errno.EPERM
    ops = [_op(_LD_ABS_W, _ARCH), _op(_JEQ, arch, 1, 0), _op(_RET, deny), _op(_LD_ABS_W, _NR)]
    checks = []
    if machine == "x86_64":
        checks.append((_JGE, X32_BIT))
    checks += [(_JEQ, n) for n in numbers]
    for i, (code, k) in enumerate(checks):
        # jump to the final deny: past the remaining checks and the allow
        ops.append(_op(code, k, len(checks) - i, 0))
    ops += [_op(_RET, _ALLOW), _op(_RET, deny)]
    return b"".join(ops)


def pipe_of(filter_bytes: bytes) -> int:
    """A readable fd holding the filter, for bubblewrap's --seccomp (the caller closes it)."""
    read, write = os.pipe()
    os.write(write, filter_bytes)
    os.close(write)
    return read
