"""the freeze ledger and its audit trail

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "witness_freezes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("pr_number", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("head_sha", sa.String(40), nullable=False),
        sa.Column("assertion_id", sa.String(200), nullable=False),
        sa.Column("property_id", sa.String(300), nullable=False),
        sa.Column("contract_digest", sa.String(64), nullable=False),
        sa.Column("fixture_digest", sa.String(64), nullable=False),
        sa.Column("witness_hash", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(200), nullable=False),
        sa.Column("signature", sa.String(300), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("proposed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_by", sa.String(100), nullable=True),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_by", sa.String(100), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_witness_freezes_repo", "witness_freezes", ["repo"])
    op.create_index("ix_witness_freezes_run_id", "witness_freezes", ["run_id"])
    op.create_index("ix_witness_freezes_state", "witness_freezes", ["state"])
    op.create_table(
        "witness_freeze_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("freeze_id", sa.String(32), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("reason", sa.String(1000), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_witness_freeze_events_freeze_id", "witness_freeze_events", ["freeze_id"])


def downgrade() -> None:
    op.drop_table("witness_freeze_events")
    op.drop_table("witness_freezes")
