"""What the gate keeps: record files and their key, sinks, the record store, the freeze ledger."""
