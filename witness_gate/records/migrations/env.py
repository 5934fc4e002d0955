"""Alembic environment: the engine comes from the caller (witness_gate.records.migrate), or from the URL."""

from alembic import context
from sqlalchemy import create_engine

from witness_gate.records.store import Base

config = context.config
engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url"))

with engine.begin() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    context.run_migrations()
