"""How the judge imports: its own standard library, the gate and the oracle's files in this process; a module of the
implementation as a proxy whose attributes live in the subject."""

from __future__ import annotations

import importlib.machinery
import os
import sys
import types

from witness_gate.sandbox.judge.peer import Peer

# what the import system itself reads and writes on a module: kept here, never asked of the subject
_LOCAL = frozenset({"__name__", "__spec__", "__loader__", "__package__", "__path__", "__file__", "__cached__",
                    "__builtins__", "__doc__", "__dict__", "__class__", "__getattr__", "__setattr__"})


class ProxyModule(types.ModuleType):
    """A module of the implementation: attribute reads and writes go to the subject's module."""

    def __getattr__(self, name):
        handle = self.__dict__.get("_witness_handle")
        if handle is None or name in _LOCAL:
            raise AttributeError(name)
        return getattr(handle, name)

    def __setattr__(self, name, value):
        if name in _LOCAL or name == "_witness_handle" or isinstance(value, types.ModuleType):
            object.__setattr__(self, name, value)  # the import system binding a submodule, or its own fields
        else:
            setattr(self.__dict__["_witness_handle"], name, value)


class SubjectModules:
    """First on sys.meta_path: a name of the implementation (`names`, the top-level modules the subject's view of
    the checkout has) that is neither the standard library's, the gate's, nor an oracle file in the judge's view
    is imported in the subject."""

    def __init__(self, peer: Peer, names, root: str, new=()) -> None:
        self.peer = peer
        self.names = subject_names(tuple(names), root)
        self.new = frozenset(new)  # names the patch added: never the implementation's, for an oracle written without them

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in self.names:
            return None
        if top in self.new:  # the oracle meets what it met on the base (the judge's own package, or none)
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin="the implementation's process")

    def create_module(self, spec):
        handle, file, package = self.peer.import_module(spec.name)
        module = ProxyModule(spec.name)
        object.__setattr__(module, "_witness_handle", handle)
        if package:
            spec.submodule_search_locations = []
        spec.has_location = False
        module.__file__ = file or spec.name  # what an ImportError of `from m import missing` names
        return module

    def exec_module(self, module):
        pass  # the module ran in the subject


_NAMES: dict[tuple[tuple[str, ...], str], frozenset[str]] = {}


def subject_names(names: tuple[str, ...], root: str) -> frozenset[str]:
    """Which of `names` are the implementation's: not the standard library's, the gate's, nor a module the judge's
    view of the checkout has itself. Once a process: a warm judge parent works it out for every child it forks."""
    if (names, root) not in _NAMES:
        own = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {"witness_gate"}
        _NAMES[names, root] = frozenset(n for n in names if n not in own and not _in_view(root, n))
    return _NAMES[names, root]


def _in_view(root: str, name: str) -> bool:
    """Whether the judge's view of the checkout has a module of that name itself (an oracle file wins)."""
    return any(os.path.exists(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name))
               for folder in (root, os.path.join(root, "src")))


def judge_held(finder) -> set[str]:
    """The implementation's names (none the patch added) that the judge has a module of its own for: one it holds
    already, or one of the gate's pytest and Hypothesis it may import later. An oracle importing one would get the
    judge's copy, never the implementation's, and the judge's pytest would get the implementation's: however the
    import is made, nothing here can be judged, so the evaluation gives no verdict before it starts."""
    site = os.environ.get("WITNESS_JUDGE_SITE", "")
    try:
        installed = {entry.partition(".")[0] for entry in os.listdir(site)} if site else set()
    except OSError:
        installed = set()
    return {name for name in finder.names - finder.new if name in sys.modules or name in installed}
