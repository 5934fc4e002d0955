"""The boundary between judge and subject: length-prefixed frames of JSON, and values copied as data or named by a
handle. Both sides import it; it imports the standard library only (it is staged into the sandbox)."""
