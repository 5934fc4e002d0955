"""The web shell: verify a webhook, route it, enqueue plain-data jobs. No GitHub API calls in a request."""
