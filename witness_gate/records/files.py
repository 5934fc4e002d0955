"""Writing record files so that a reader never sees half of one; caches nobody else can plant into."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_atomic(path: str | Path, value: Any) -> Path:
    """Write pretty JSON to a sibling temp file, then rename over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=2, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


CACHE_ENV = "WITNESS_CACHE"


def cache_root() -> Path:
    """Where checkouts and set-up environments are kept: $WITNESS_CACHE, else the system temp directory."""
    return Path(os.environ.get(CACHE_ENV) or tempfile.gettempdir())


def unsafe_cache(path: Path) -> str:
    """Why `path` cannot hold cached work safely, or '': another owner, or writable by others, could plant it."""
    st = path.stat()
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return (f"{path} belongs to uid {st.st_uid} or is writable by others, so what is cached in it could be "
                f"planted; point {CACHE_ENV} at a directory of your own")
    return ""
