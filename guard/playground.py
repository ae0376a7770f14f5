"""Seed 002: whether a call is the remedy a Playground refusal asked for.

``binds_new_project`` answers, without touching the disk, whether the
Playground router would reserve and bind a new project for this call. It is
deliberately narrower than the router: spellings the router also binds
(``playground/<name>/...``, ``<name>/<file>``) are not admitted as a remedy,
because only the exact form the refusal text asks for proves that the model
followed it.

Reading where the seed is silent: a component whose stem before the first
dot names a Windows device (``con.txt``, ``LPT1.log``) is refused too, since
Windows treats those as the device.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import attrs

#: Tool ids that are a write, direct or through Tool Search's ``tool_call``.
WRITE_IDS = frozenset({"write", "openclaw:core:write"})

#: Project folder names too generic to bind (compared case-insensitively).
GENERIC_NAMES = frozenset(
    {
        "playground", "project", "projeto", "app", "application", "site", "website", "web",
        "game", "jogo", "public", "src", "source", "build", "dist", "assets", "static",
        "css", "js", "test", "tests", "folder", "new-project",
    }
)

#: Names Windows reserves for devices.
WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)} | {f"lpt{i}" for i in range(1, 10)}
)

COMPONENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_COMPONENTS = 3
MAX_COMPONENTS = 12
MAX_PATH_CHARS = 512
WORKSPACE_PREFIX = "/workspace/"
PLAYGROUND = "Playground"


@attrs.frozen
class RoutingState:
    """What the Playground router knows about this run before the call."""

    initialized: bool = True
    first_project_file: bool = False
    binding: str | None = None
    preserved: bool = False
    routing_failure: bool = False

    def fresh(self) -> bool:
        """Initialized, no project file yet, nothing bound or preserved, no routing failure."""
        return (
            self.initialized
            and not self.first_project_file
            and self.binding is None
            and not self.preserved
            and not self.routing_failure
        )


def write_path(tool: Any, params: Any) -> str | None:
    """The path a write call writes to, direct or wrapped in ``tool_call``; None for any other call."""
    if not isinstance(params, dict):
        return None
    if tool == "tool_call":
        if params.get("id") not in WRITE_IDS:
            return None
        params = params.get("args")
        if not isinstance(params, dict):
            return None
    elif tool != "write":
        return None
    path = params.get("path")
    return path if isinstance(path, str) else None


def relative_path(path: str, root: str | None = None) -> str:
    """Slashes only, without a configured absolute root or ``/workspace/``, then without ``./``."""
    path = path.replace("\\", "/")
    if root:
        prefix = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(prefix):
            path = path[len(prefix):]
    if path.startswith(WORKSPACE_PREFIX):
        path = path[len(WORKSPACE_PREFIX):]
    if path.startswith("./"):
        path = path[2:]
    return path


def usable_component(component: str) -> bool:
    if not COMPONENT.fullmatch(component) or component.endswith("."):
        return False
    return component.split(".", 1)[0].lower() not in WINDOWS_DEVICES


def project_path_ok(relative: str) -> bool:
    """Playground/<non-generic name>/... with usable components, within the length limits."""
    if len(relative) > MAX_PATH_CHARS:
        return False
    parts = relative.split("/")
    if not MIN_COMPONENTS <= len(parts) <= MAX_COMPONENTS:
        return False
    if not all(usable_component(part) for part in parts):
        return False
    return parts[0] == PLAYGROUND and parts[1].lower() not in GENERIC_NAMES


def binds_new_project(
    tool: Any,
    params: Any,
    state: RoutingState,
    root: str | None = None,
    read_paths: Iterable[str] = (),
) -> bool:
    """True only when the router would reserve and bind a new project for this write."""
    path = write_path(tool, params)
    if path is None or not state.fresh():
        return False
    relative = relative_path(path, root)
    if not project_path_ok(relative):
        return False
    read = set(read_paths)
    # The router preserves a file the run has read instead of binding it as a new project.
    return path not in read and relative not in read
