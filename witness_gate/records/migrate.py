"""Schema migrations of the record store (Alembic), run from code: no alembic.ini to carry around."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

SCRIPTS = Path(__file__).resolve().parent / "migrations"


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    config.attributes["engine"] = engine
    return config


@contextlib.contextmanager
def _exclusive(engine: Engine) -> Iterator[None]:
    """One migrator at a time: web and worker processes all start by migrating."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT pg_advisory_lock(72620441)")
            try:
                yield
            finally:
                conn.exec_driver_sql("SELECT pg_advisory_unlock(72620441)")
                conn.commit()
    elif engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        with open(f"{engine.url.database}.migrate-lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
    else:
        yield


def upgrade(engine: Engine, revision: str = "head") -> None:
    with _exclusive(engine):
        command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    with _exclusive(engine):
        command.downgrade(alembic_config(engine), revision)
