"""The App's jobs, by the dotted path the receiver enqueues them with (`worker.jobs.<name>`).

Each lives in the module of its responsibility: gating a head (worker.gating), people's commands
(worker.people), presses on a check run (worker.buttons), work that ends early (worker.failures), the
reconciler (worker.reconcile).
"""

from worker.buttons import handle_action
from worker.context import Context, context  # what every job builds on
from worker.failures import cancel_pull_request, on_job_failure
from worker.gating import finish_run, gate_pull_request, run_property
from worker.people import handle_comment
from worker.reconcile import reconcile
from worker.rendering import rerender

__all__ = ["Context", "cancel_pull_request", "context", "finish_run", "gate_pull_request", "handle_action",
           "handle_comment", "on_job_failure", "reconcile", "rerender", "run_property"]
