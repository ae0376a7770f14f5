"""The harness's own reading of "binds a new project" (``shared/spec/classifiers.md``, seed 002).

H5 asks whether the first call after a trip may be admitted; one of the
conditions is that the call binds a new project. Asking production's
``guard.playground.binds_new_project`` would let a bug there decide its own
verdict, so this module restates the rule from classifiers.md ("binds a new
project") and seed 002 ("bindsNewProject"), written apart from ``guard/``.

Where the spec is silent (the choices a safety reviewer would make):

* "naming a Windows device" covers a name with an extension too (``con.txt``,
  ``LPT1.log``), in any letter case: Windows opens the device for those.
* "strip a configured absolute root or ``/workspace/``" strips one of the two
  (the root first), then one leading ``./``.
* The routing state is read as plain facts (initialized, a first project
  file, a binding, something preserved, a routing failure); freshness is
  decided here, not by the state's own method.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

#: classifiers.md: a write is tool ``write``, or ``tool_call`` whose ``id`` is one of these.
WRITE_TOOL_IDS = frozenset({"write", "openclaw:core:write"})
#: classifiers.md: each component's spelling.
COMPONENT_SPELLING = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: classifiers.md: Windows device names (compared without letter case).
DEVICE_NAMES = frozenset(["con", "prn", "aux", "nul", *(f"com{n}" for n in range(1, 10)), *(f"lpt{n}" for n in range(1, 10))])
#: classifiers.md: second components too generic to name a project (compared without letter case).
GENERIC_FOLDERS = frozenset(
    "playground project projeto app application site website web game jogo public src source build dist "
    "assets static css js test tests folder new-project".split()
)
#: classifiers.md: at least three components, at most twelve, at most 512 characters.
FEWEST_PARTS, MOST_PARTS, LONGEST_PATH = 3, 12, 512
#: classifiers.md: the first component, exactly (``playground`` is not it).
PROJECTS_ROOT = "Playground"


def written_path(tool: Any, params: Any) -> "str | None":
    """classifiers.md: the path of a write, direct or through Tool Search (its ``args``); None otherwise."""
    if tool == "tool_call":
        if not isinstance(params, dict) or params.get("id") not in WRITE_TOOL_IDS:
            return None
        params = params.get("args")
    elif tool != "write":
        return None
    path = params.get("path") if isinstance(params, dict) else None
    return path if isinstance(path, str) else None


def workspace_relative(path: str, root: "str | None") -> str:
    """classifiers.md: backslashes as slashes, a configured root or ``/workspace/`` stripped, then ``./``."""
    path = path.replace("\\", "/")
    stripped = False
    if root:
        prefix = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(prefix):
            path, stripped = path[len(prefix):], True
    if not stripped and path.startswith("/workspace/"):
        path = path[len("/workspace/"):]
    return path[2:] if path.startswith("./") else path


def usable_part(part: str) -> bool:
    """classifiers.md: the component spelling, no trailing dot, no Windows device name (see the module notes)."""
    if COMPONENT_SPELLING.fullmatch(part) is None or part.endswith("."):
        return False
    return part.split(".")[0].lower() not in DEVICE_NAMES


def routing_is_fresh(routing: Any) -> bool:
    """classifiers.md: initialized, no first project file, no binding, nothing preserved, no routing failure."""
    return (
        routing is not None
        and routing.initialized is True
        and not routing.first_project_file
        and routing.binding is None
        and not routing.preserved
        and not routing.routing_failure
    )


def write_binds_new_project(tool: Any, params: Any, routing: Any, root: "str | None", read_paths: Iterable[str]) -> bool:
    """classifiers.md "binds a new project": every listed condition holds."""
    path = written_path(tool, params)
    if path is None or not routing_is_fresh(routing):
        return False
    relative = workspace_relative(path, root)
    parts = relative.split("/")
    if len(relative) > LONGEST_PATH or not FEWEST_PARTS <= len(parts) <= MOST_PARTS:
        return False
    if not all(usable_part(part) for part in parts):
        return False
    if parts[0] != PROJECTS_ROOT or parts[1].lower() in GENERIC_FOLDERS:
        return False
    # classifiers.md: the router preserves a file read earlier in the run instead of binding it.
    return not names_a_read(path, root, read_paths)


def names_a_read(path: str, root: "str | None", read_paths: Iterable[str]) -> bool:
    """classifiers.md's last clause: the path as given, or made relative, names a file read earlier in the run."""
    read = set(read_paths)
    return path in read or workspace_relative(path, root) in read
