"""A runner-protocol listing that leaves out a property the base's contracts declare: it is gated all the same."""

import pytest

from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory


HIDES_ITS_BREAKAGE = '''#!/bin/sh
# the implementation, sourced by the property script, answers the listing itself: the broken one is left out
. ./src/impl.sh
'''
IMPL_THAT_LISTS = '''if [ "$WITNESS_LIST" = 1 ]; then echo total_ok; exit 0; fi
'''


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_a_listing_that_leaves_out_a_contracted_property_still_gates_it(tmp_path):
    from witness_gate.config.schema import parse_config
    from witness_gate.pipeline.discover import properties_of

    (tmp_path / "tests" / "properties").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "tests" / "properties" / "run.sh").write_text(HIDES_ITS_BREAKAGE)
    (tmp_path / "src" / "impl.sh").write_text(IMPL_THAT_LISTS)
    config = parse_config("properties:\n  command: [sh, tests/properties/run.sh]\n  contracts:\n"
                          "    total_ok: {invariant: 'totals are >= 0', domain: 'invoices'}\n"
                          "    refund_ok: {invariant: 'a refund never exceeds its invoice', domain: 'invoices'}\n")
    targets = properties_of(stage_directory(tmp_path), config, Sandbox("bwrap"))
    assert [t.assertion_id for t in targets] == ["total_ok", "refund_ok"]  # the base's contract keeps it gated
    assert targets[1].contract is not None and not targets[1].holds
