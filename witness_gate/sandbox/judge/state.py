"""What an evaluation may change in a judge's process, kept and put back when one judge evaluates again and again (a
series of shrink candidates)."""

from __future__ import annotations

import os
import sys


class State:
    """What an evaluation may change in the judge's process, which a series judge puts back after each one: the
    modules it imported (the property's, the implementation's proxies), the import system, the working directory, the
    environment and the time zone, the standard streams, the recursion limit, warning filters, the umask, signal
    handlers and the decimal context; a process it started is ended. A thread left running, or a logging set-up
    changed, cannot be put back: the series ends."""

    def __init__(self) -> None:
        import builtins
        import decimal
        import signal
        import threading
        import warnings

        self.modules = set(sys.modules)
        self.meta_path, self.path, self.hooks = list(sys.meta_path), list(sys.path), list(sys.path_hooks)
        self.import_, self.streams = builtins.__import__, (sys.stdout, sys.stderr)
        self.cwd, self.limit, self.environ = os.getcwd(), sys.getrecursionlimit(), dict(os.environ)
        self.threads = threading.active_count()
        self.warnings, self.decimal = list(warnings.filters), decimal.getcontext().copy()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.signals = {number: signal.getsignal(number) for number in _signals()}
        self.logging = _logging_state()

    def restore(self) -> bool:
        """Put it back; False when something cannot be (a thread still running, a working directory gone)."""
        import builtins
        import decimal
        import signal
        import threading
        import time
        import warnings

        for name in [name for name in sys.modules if name not in self.modules]:  # the property's, the proxies
            sys.modules.pop(name, None)
        sys.meta_path[:], sys.path[:], sys.path_hooks[:] = self.meta_path, self.path, self.hooks
        sys.path_importer_cache.clear()
        builtins.__import__, (sys.stdout, sys.stderr) = self.import_, self.streams
        sys.setrecursionlimit(self.limit)
        if os.environ != self.environ:
            zone = os.environ.get("TZ")
            os.environ.clear()
            os.environ.update(self.environ)
            if zone != os.environ.get("TZ"):
                time.tzset()
        warnings.filters[:] = self.warnings
        warnings._filters_mutated()
        decimal.setcontext(self.decimal.copy())
        os.umask(self.umask)
        for number, handler in self.signals.items():
            if signal.getsignal(number) is not handler and handler is not None:
                signal.signal(number, handler)
        from witness_gate.sandbox.wire.leftovers import end_orphans

        end_orphans(())  # a process the evaluation started ends with it, as a forked judge's did
        try:
            os.chdir(self.cwd)
        except OSError:
            return False
        return threading.active_count() == self.threads and _logging_state() == self.logging


def _signals() -> list[int]:
    import signal

    return [number for number in signal.valid_signals() if number not in (signal.SIGKILL, signal.SIGSTOP)]


def _logging_state():
    """The root logger's level and handlers, when logging is loaded (a series ends when an evaluation changed them)."""
    logging = sys.modules.get("logging")
    return None if logging is None else (logging.root.level, tuple(logging.root.handlers))
