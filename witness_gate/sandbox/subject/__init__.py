"""Runs inside the subject's sandbox: the implementation, and the server the judge's proxies call."""
