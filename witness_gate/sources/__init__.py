"""Facts about a change read from the host without running it: git, and a checkout read safely."""
