"""Finding a checkout's properties and their contracts: Python `prop_*` functions by reading source, never
by running it; runner-protocol properties by the names in `.witness.yml` or the command's sandboxed listing."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from witness_gate.config.schema import CONFIG_NAME, Config
from witness_gate.model.canonical import canonical_bytes, property_id
from witness_gate.model.contract import Contract
from witness_gate.pipeline import pytests
from witness_gate.sandbox import Sandbox, listing
from witness_gate.sandbox.judge.tests import PREFIX as PYTEST_PREFIX
from witness_gate.sources import safefs

MAX_MODULE_BYTES = 8 * 1024 * 1024  # a property module larger than this is refused, not read


class DiscoveryError(ValueError):
    """A property directory or module the gate cannot read."""


@dataclass(frozen=True)
class PropertyTarget:
    assertion_id: str  # the function name
    property_id: str  # <relpath>::<function>@<12 hex of the file>
    relpath: str  # the module, relative to the repository root
    line: int  # of the `def`, for annotations
    contract: Contract | None  # None until both invariant and domain are known
    contract_problem: str = ""  # why the contract is missing, and how to add one
    holds: tuple[str, ...] = ()  # why this target cannot run at all, e.g. `unsafe_path:<relpath>`
    protocol: bool = False  # run by properties.command, which is told the bare name
    node: str = ""  # a pytest test's node in its file (`test_x`, `TestY::test_x`): the test is the property

    @property
    def selector(self) -> str:
        """What the harness is told to run, `<relpath>::<function>` (`pytest:<relpath>::<node>` for a test); the runner
        protocol's command, the name."""
        if self.node:
            return f"{PYTEST_PREFIX}{self.relpath}::{self.node}"
        return self.assertion_id if self.protocol else f"{self.relpath}::{self.assertion_id}"


def properties_of(repo: Path, config: Config, sandbox: Sandbox | None) -> list[PropertyTarget]:
    """The checkout's properties: `prop_*` functions, or with properties.command the names that
    properties.names gives, else those the command lists (run in `sandbox`; None: there is none)."""
    if config.command is None:
        props = discover(repo, config.properties_dir, config.contracts, optional=bool(config.pytest))
        return props + pytest_targets(repo, config.pytest)
    names = config.names
    if not names and sandbox is None:
        raise DiscoveryError(f"properties.command {list(config.command)} would list its properties in the sandbox, "
                             "and there is none here; install bubblewrap, or name them in properties.names")
    if not names:
        try:
            names = tuple(listing.list_names(repo, config.command, sandbox, config.timeout_seconds))
        except listing.ListingError as exc:
            raise DiscoveryError(str(exc)) from None
        # the listing runs the head's code (a script that imports the implementation): a property the base
        # declares a contract for is gated even when the listing leaves it out, so dropping it hides nothing
        names += tuple(name for name in config.contracts if name not in names)
    return [command_target(repo, config, name) for name in names]


def property_named(repo: Path, config: Config, assertion_id: str) -> PropertyTarget:
    """One property of a gate run whose names are known already: a command's is not listed a second time."""
    if config.command is not None:
        return command_target(repo, config, assertion_id)
    for target in properties_of(repo, config, None):
        if target.assertion_id == assertion_id:
            return target
    raise DiscoveryError(f"{assertion_id}: no longer found under {config.properties_dir} in {repo}")


def command_target(repo: Path, config: Config, name: str) -> PropertyTarget:
    """A runner-protocol property: its contract from properties.contracts, its id from the command's script."""
    assert config.command is not None
    relpath, raw, holds = _command_script(repo, config.command)
    body = config.contracts.get(name)
    contract = Contract(name, body["invariant"], body["domain"]) if body else None
    problem = "" if contract else (
        f"{name} has no contract: add properties.contracts.{name}: {{invariant: \"...\", domain: \"...\"}} "
        f"to {CONFIG_NAME} on the base branch (a command's properties declare their contracts there)")
    return PropertyTarget(assertion_id=name, property_id=property_id(relpath, name, raw), relpath=relpath,
                          line=1, contract=contract, contract_problem=problem, holds=holds, protocol=True)


def _command_script(repo: Path, command: tuple[str, ...]) -> tuple[str, bytes, tuple[str, ...]]:
    """(relpath, bytes, holds) of the first argument that is a file of the checkout (the script a reviewer
    opens); a command that names none is identified by itself, as .witness.yml declares it."""
    for argument in command:
        relpath = argument.removeprefix("./")
        if argument.startswith(("-", "/")) or ".." in relpath.split("/") or not relpath:
            continue
        try:
            return relpath, safefs.read_inside(repo, relpath, max_bytes=MAX_MODULE_BYTES), ()
        except FileNotFoundError:
            continue  # a program on PATH (node, sh), not a file of the repository
        except safefs.UnsafePath as exc:
            if exc.problem == "a directory":  # an argument like `tests`: not the script
                continue
            return relpath, b"", (exc.reason,)
        except OSError:
            continue
    return CONFIG_NAME, canonical_bytes(list(command)), ()


def pytest_targets(repo: Path, paths: tuple[str, ...]) -> list[PropertyTarget]:
    """Every pytest test in the files and folders `properties.pytest` names, in file order."""
    found: list[PropertyTarget] = []
    for relpath in pytests.gated_files(repo, paths):
        try:
            raw, nodes = pytests.read_tests(repo, relpath)
        except safefs.UnsafePath as exc:
            found.append(unsafe_target(relpath, exc))
            continue
        except OSError as exc:
            found.append(unsafe_target(relpath, f"cannot be read ({exc.strerror or exc})"))
            continue
        except (SyntaxError, ValueError) as exc:
            raise DiscoveryError(f"{relpath}:{getattr(exc, 'lineno', 1)}: does not parse "
                                 f"({getattr(exc, 'msg', exc)})") from None
        for node, line, source, docstring in nodes:
            found.append(PropertyTarget(
                assertion_id=pytests.assertion_id(relpath, node), property_id=property_id(relpath, node, raw),
                relpath=relpath, line=line, contract=pytests.contract_of(node, source, docstring), node=node))
        # and every test pytest collects there that reading the source did not name (a mixin's, a nested class's, one
        # defined under an `if`): the file less those named, so none goes ungated (found by a reviewer)
        others = pytests.others(nodes)
        found.append(PropertyTarget(
            assertion_id=pytests.assertion_id(relpath, pytests.OTHERS_NAME), property_id=property_id(relpath, "*", raw),
            relpath=relpath, line=1, contract=pytests.contract_of("*", raw.decode("utf-8", "replace"), ""),
            node=others))
    return found


def discover(repo: Path, properties_dir: str, contracts: dict[str, dict[str, str]],
             optional: bool = False) -> list[PropertyTarget]:
    """Every top-level `prop_*` function under `properties_dir`, sorted by assertion id.

    The checkout is read through `safefs`: a module that is a link out of the tree, a dangling
    link or a special file is never followed or opened; it becomes a target that holds with
    `unsafe_path:<relpath>` where a property was meant.
    """
    try:
        modules = list(safefs.walk_files(repo, properties_dir, ".py"))
    except safefs.UnsafePath as exc:
        raise DiscoveryError(f"properties.dir {exc}") from None
    except OSError:
        if optional:  # the repository's own tests are its properties
            return []
        raise DiscoveryError(
            f"{properties_dir}: no such directory in {repo}; set properties.dir in .witness.yml"
        ) from None
    found: dict[str, PropertyTarget] = {}
    for relpath in modules:
        for target in _read_module(repo, relpath, contracts):
            if target.assertion_id in found:
                raise DiscoveryError(
                    f"{relpath}:{target.line}: {target.assertion_id} is also defined in "
                    f"{found[target.assertion_id].relpath}; assertion ids must be unique"
                )
            found[target.assertion_id] = target
    return [found[name] for name in sorted(found)]


def unsafe_target(relpath: str, problem: safefs.UnsafePath | str) -> PropertyTarget:
    """A hold where a property was meant: the module at `relpath` cannot be read safely."""
    exc = problem if isinstance(problem, safefs.UnsafePath) else safefs.UnsafePath(relpath, problem)
    return PropertyTarget(
        assertion_id=f"unsafe_path:{relpath.replace('/', '.')}",
        property_id="",
        relpath=relpath,
        line=1,
        contract=None,
        contract_problem=f"unsafe_path:{exc}",
        holds=(exc.reason,),
    )


def _read_module(repo: Path, relpath: str, contracts: dict[str, dict[str, str]]) -> list[PropertyTarget]:
    try:
        raw = safefs.read_inside(repo, relpath, max_bytes=MAX_MODULE_BYTES)
    except safefs.UnsafePath as exc:
        return [unsafe_target(relpath, exc)]
    except OSError as exc:
        return [unsafe_target(relpath, f"cannot be read ({exc.strerror or exc})")]
    try:
        tree = ast.parse(raw, filename=relpath)
    except SyntaxError as exc:
        raise DiscoveryError(f"{relpath}:{exc.lineno}: does not parse ({exc.msg})") from None
    except ValueError as exc:  # null bytes and the like
        raise DiscoveryError(f"{relpath}: does not parse ({exc})") from None
    targets = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("prop_"):
            contract, problem = _contract_of(node, contracts.get(node.name), relpath)
            targets.append(
                PropertyTarget(
                    assertion_id=node.name,
                    property_id=property_id(relpath, node.name, raw),
                    relpath=relpath,
                    line=node.lineno,
                    contract=contract,
                    contract_problem=problem,
                )
            )
    return targets


def _contract_of(
    node: ast.FunctionDef | ast.AsyncFunctionDef, configured: dict[str, str] | None, relpath: str
) -> tuple[Contract | None, str]:
    how = (
        f"add @contract(invariant=\"...\", domain=\"...\") above {node.name} in {relpath} "
        f"(from witness_gate import contract), or properties.contracts.{node.name} in .witness.yml"
    )
    declared: dict[str, str] = {}
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call) or _name_of(decorator.func) != "contract":
            continue
        for keyword in decorator.keywords:
            if keyword.arg in ("invariant", "domain"):
                value = keyword.value
                if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    return None, (
                        f"{relpath}:{decorator.lineno}: the contract's {keyword.arg} must be a "
                        "string literal, so the gate can read it without running the code"
                    )
                declared[keyword.arg] = value.value
    if configured:
        declared = {**declared, **configured}
    contract = Contract(node.name, declared.get("invariant", ""), declared.get("domain", ""))
    if not contract.complete():
        return None, f"{node.name} has no complete contract: {how}"
    return contract, ""


def _name_of(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""
