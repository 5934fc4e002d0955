"""Runs inside the judge's sandbox: the harness that imports the oracle, runs the property and decides, with the
implementation reached only through proxies."""
