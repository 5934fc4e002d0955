"""check-run ids are 64-bit: GitHub's passed 2^31 long ago

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("witness_gate_runs") as batch:  # SQLite rebuilds the table; PostgreSQL alters it
        batch.alter_column("check_run_id", type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=True)


def downgrade() -> None:
    # an id past 2^31 has no 32-bit form: those runs forget their check run, as they did before this revision
    op.execute("UPDATE witness_gate_runs SET check_run_id = NULL WHERE check_run_id > 2147483647")
    with op.batch_alter_table("witness_gate_runs") as batch:
        batch.alter_column("check_run_id", type_=sa.Integer(), existing_type=sa.BigInteger(), existing_nullable=True)
