"""One pull request's attempt: gather, first run, shrink, replay, base replay, broader sample."""
