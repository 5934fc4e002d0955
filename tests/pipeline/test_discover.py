"""Finding properties and their contracts from source, without running it."""

import pytest

from witness_gate.pipeline.discover import DiscoveryError, discover

MODULE = '''
import witness_gate
from witness_gate import contract

@contract(invariant="totals are >= 0", domain="orders")
def prop_decorated(p): return True

@witness_gate.contract(invariant="qualified", domain="any")
def prop_qualified(p): return True

INV = "computed"
@contract(invariant=INV, domain="orders")
def prop_computed(p): return True

def prop_bare(p): return True

def helper_not_a_property(p): return False

class Holder:
    def prop_method(self, p): return True
'''


def test_discovery_reads_contracts_and_lines(tmp_path):
    (tmp_path / "props").mkdir()
    (tmp_path / "props" / "m.py").write_text(MODULE)
    targets = {t.assertion_id: t for t in discover(tmp_path, "props", {"prop_bare": {"invariant": "i", "domain": "d"}})}
    assert sorted(targets) == ["prop_bare", "prop_computed", "prop_decorated", "prop_qualified"]
    assert targets["prop_decorated"].contract.invariant == "totals are >= 0"
    assert targets["prop_decorated"].line == 6
    assert targets["prop_qualified"].contract.input_domain == "any"
    assert targets["prop_bare"].contract.invariant == "i"  # from .witness.yml
    assert targets["prop_computed"].contract is None
    assert "must be a string literal" in targets["prop_computed"].contract_problem
    assert targets["prop_decorated"].selector == "props/m.py::prop_decorated"
    assert targets["prop_decorated"].property_id.startswith("props/m.py::prop_decorated@")


def test_a_property_without_a_contract_says_how_to_add_one(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "m.py").write_text("def prop_x(p): return True\n")
    [target] = discover(tmp_path, "p", {})
    assert target.contract is None
    assert "add @contract(invariant=\"...\", domain=\"...\") above prop_x in p/m.py" in target.contract_problem
    assert "properties.contracts.prop_x" in target.contract_problem


@pytest.mark.parametrize("files, message", [
    ({"p/a.py": "def prop_x(p):\n  return (\n"}, r"p/a.py:2: does not parse \('\(' was never closed\)"),
    ({"p/a.py": "def prop_x(p): pass\n", "p/b.py": "def prop_x(p): pass\n"},
     "p/b.py:1: prop_x is also defined in p/a.py; assertion ids must be unique"),
])
def test_bad_property_directories(tmp_path, files, message):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    with pytest.raises(DiscoveryError, match=message):
        discover(tmp_path, "p", {})


def test_a_missing_directory_says_which_setting(tmp_path):
    with pytest.raises(DiscoveryError, match="set properties.dir in .witness.yml"):
        discover(tmp_path, "nope", {})
