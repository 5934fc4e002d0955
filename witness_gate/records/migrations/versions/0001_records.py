"""gate runs and attempt records

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "witness_gate_runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("installation_id", sa.Integer(), nullable=False),
        sa.Column("pr_number", sa.Integer(), nullable=False),
        sa.Column("head_sha", sa.String(40), nullable=False),
        sa.Column("base_sha", sa.String(40), nullable=False),
        sa.Column("check_run_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("label", sa.String(30), nullable=True),
        sa.Column("conclusion", sa.String(30), nullable=True),
        sa.Column("patch_digest", sa.String(64), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_witness_gate_runs_repo", "witness_gate_runs", ["repo"])
    op.create_index("ix_witness_gate_runs_pr_number", "witness_gate_runs", ["pr_number"])
    op.create_index("ix_witness_gate_runs_head_sha", "witness_gate_runs", ["head_sha"])
    op.create_table(
        "witness_attempts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("run_id", sa.String(32), sa.ForeignKey("witness_gate_runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("assertion_id", sa.String(200), nullable=False),
        sa.Column("label", sa.String(30), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_witness_attempts_run_id", "witness_attempts", ["run_id"])


def downgrade() -> None:
    op.drop_table("witness_attempts")
    op.drop_table("witness_gate_runs")
