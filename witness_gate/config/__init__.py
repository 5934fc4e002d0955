"""`.witness.yml` and the fixture lock: parsed, with errors that name file:line:key."""
