"""Where the project and ``../shared`` are, from the project root or from mutmut's ``mutants/`` copy."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """``$GUARD_SHARED`` if set, else the nearest ``shared/`` beside the project root or an ancestor of it."""
    named = os.environ.get("GUARD_SHARED")
    if named:
        return Path(named)
    for folder in (ROOT, *ROOT.parents):
        candidate = folder.parent / "shared"
        if (candidate / "seeds").is_dir():
            return candidate
    return ROOT.parent / "shared"


def fixtures_dir() -> Path:
    return shared_dir() / "fixtures" / "pixel"
