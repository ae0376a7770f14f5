"""The harness's own reading of the Playground router's decisions before the first project file (seed 002).

H12 judges every call the router sees against this module, never against
``guard/hooks.py``'s router model: a rule change there (which calls are
refused, which folder a first write binds, which receipt kind a refusal
carries) would otherwise decide its own verdict. What the spec and the seed
say, restated:

* hooks.md: "The Playground router may refuse a call here (it runs nothing);
  a refusal before the first project file carries a correctable kind
  (``playground-first-write`` for exec/apply_patch,
  ``playground-project-path`` for a write to a bare, generic or unusable
  path)."
* seed 002: "the router refuses commands until the first project file
  exists", with the refusal text "Not run: write the first project file ...";
  its recorded call 2, ``python3 --version``, "ran (allowed inspection)"
  while call 1, the same probe followed by ``&& python3 -c ...``, was refused.
* seed 002: the router binds the project in ``before_tool_call``, before the
  write runs; it also binds spellings such as ``playground/<name>/...`` and
  ``<name>/<file>``, which ``binds_new_project`` deliberately does not admit.

Where the spec is silent (the choices a careful reviewer of the guard would
expect, written here and in the README):

* "Before the first project file" means the routing state has neither a
  binding nor a first project file; after either, the router refuses nothing
  and the binding never changes.
* A "version probe" is exactly one program name and ``--version`` or ``-V``,
  nothing else (the seed's call 1 shows that anything chained to it runs
  code); the name starts with a letter or digit and holds letters, digits and
  ``._+-``.
* The folder a first write binds: the path made relative as classifiers.md
  says (``spec_playground.workspace_relative``); ``playground`` in any letter
  case as the first component binds its first two components, any other first
  component binds itself. The write is refused as "bare" when no file lies
  beneath that folder, as "generic" when the folder's own name is one of
  classifiers.md's generic names (any letter case), and as "unusable" when the
  path breaks classifiers.md's component rules (spelling, trailing dot,
  device names), its 12 components or its 512 characters. The binding is the
  folder as written (its letter case kept).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from properties.hooks.spec_playground import (
    GENERIC_FOLDERS, LONGEST_PATH, MOST_PARTS, usable_part, workspace_relative, written_path,
)

#: The tools that read a file, direct or named by Tool Search's ``id`` (classifiers.md names ``write`` and
#: ``openclaw:core:write`` for writes; reads are spelled the same way). H5's "a file read earlier in the run"
#: is a read the guard let through while routing was active: a refused read ran nothing, and a read the guard
#: never saw (no ``before_tool_call``) is one it cannot know of.
READ_TOOLS = frozenset({"read", "openclaw:core:read"})
#: hooks.md: the tools the first-write gate holds back, direct or named by Tool Search's ``id``.
GATED_TOOLS = frozenset({"exec", "apply_patch", "openclaw:core:exec", "openclaw:core:apply_patch"})
#: hooks.md: the two correctable kinds a refusal before the first project file carries.
FIRST_WRITE, PROJECT_PATH = "playground-first-write", "playground-project-path"
#: seed 002: how the gate's refusal begins, as the recorded session shows it.
FIRST_WRITE_HEAD = "Not run: write the first project file"
#: The one command the gate lets run (see the module notes).
VERSION_PROBE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*[ ](--version|-V)")


def called_tool(tool: Any, params: Any) -> tuple[Any, Any]:
    """hooks.md: the real tool and its arguments, direct or through Tool Search (``tool_call`` with ``id``/``args``)."""
    if tool == "tool_call" and isinstance(params, dict):
        return params.get("id"), params.get("args")
    return tool, params


def is_version_probe(args: Any) -> bool:
    """seed 002's allowed inspection: the command asks one program for its version and does nothing else."""
    command = args.get("command") if isinstance(args, dict) else None
    return isinstance(command, str) and VERSION_PROBE.fullmatch(command.strip()) is not None


def project_folder(path: str, root: "str | None") -> "str | None":
    """The folder a first write to ``path`` binds, or None when the router refuses it (bare, generic, unusable)."""
    relative = workspace_relative(path, root)
    parts = relative.split("/")
    if len(relative) > LONGEST_PATH or len(parts) > MOST_PARTS or not all(usable_part(part) for part in parts):
        return None
    width = 2 if parts[0].lower() == "playground" else 1
    if len(parts) <= width:
        return None
    if parts[width - 1].lower() in GENERIC_FOLDERS:
        return None
    return "/".join(parts[:width])


def started(routing: Any) -> bool:
    """The run has its first project file: the routing state holds a binding or a first project file."""
    return routing.binding is not None or bool(routing.first_project_file)


def router_refusal(tool: Any, params: Any, routing: Any, root: "str | None") -> "str | None":
    """The kind of the router's refusal of this call, or None when the router lets it through."""
    if started(routing):
        return None
    real, args = called_tool(tool, params)
    if real in GATED_TOOLS and not is_version_probe(args):
        return FIRST_WRITE
    path = written_path(tool, params)
    if path is not None and project_folder(path, root) is None:
        return PROJECT_PATH
    return None


def binding_after(tool: Any, params: Any, routing: Any, root: "str | None") -> "str | None":
    """The routing state's binding once the router let this call through (the first write binds its folder)."""
    if started(routing):
        return routing.binding
    path = written_path(tool, params)
    return project_folder(path, root) if path is not None else routing.binding


@attrs.frozen
class RouterExpectation:
    """What the router must do with one call, decided before it is delivered (``expect_router``)."""

    #: The refusal's kind (``FIRST_WRITE``, ``PROJECT_PATH``), or None when the router lets the call through.
    kind: "str | None"
    #: The routing state's binding once the router let the call through.
    binding: "str | None"
    #: The routing state as the call found it (everything but the binding must stay as it was).
    routing: Any


def expect_router(tool: Any, params: Any, routing: Any, root: "str | None") -> RouterExpectation:
    """The router's decision on this call, as this module reads seed 002 and hooks.md."""
    return RouterExpectation(router_refusal(tool, params, routing, root), binding_after(tool, params, routing, root), routing)
