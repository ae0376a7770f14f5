"""``python -m properties.replay`` (``nox -s replay``): a saved file, or the recorded sessions, judged by its subject.

Usage::

    python -m properties.replay [FILE ...] [the subject's own options]
    python -m properties.replay --hooks [...]       # a subject's switch (``Replay.option``)

The core reads no file format: every subject declares its files and its
replay command (``properties.subject.Replay``), and this module only picks
the subject.

* A subject's switch (``--hooks``) hands the rest of the command line to that
  subject's replay.
* FILE arguments go to the subject whose schema every one of them carries
  (``Replay.recognizes``). A file whose first field names a schema no subject
  reads is refused here, on one line listing every format, exit 2. Files that
  no one subject claims all go to the first subject (registry order) that
  replays recorded sessions: its reader names the file and the field that is
  wrong, on one line, exit 2.
* Without FILE, the first such subject gets the command line (its sessions, its
  ``--json`` and ``--name``); on a bare ``nox -s replay`` every other subject
  that replays recorded sessions follows, after a blank line. Exit status: the
  worst of them (1 when an invariant breaks, 2 for a bad file or option).

Every replay runs under the verdict's memory limit: a replay that exhausts
it, or a version that crashes on the trace, is one line naming what was
replayed and exit status 1 (issue 25), never a traceback.
"""

from __future__ import annotations

import sys
from typing import Sequence

from properties import work_bound
from properties.subject import Subject, available, unknown_schema as known_formats_only


def _looks_like_file(argument: str, previous: str) -> bool:
    # An option's value (``--name TEXT``) is not a file; every subject's options take at most one value.
    return not argument.startswith("-") and not (previous.startswith("--") and "=" not in previous and previous in _VALUED)


#: Options of the subjects' replay commands that take a value (what follows them is not a file).
_VALUED = ("--name", "--order")


def chosen(argv: Sequence[str]) -> "tuple[Subject, list[str], list[Subject]]":
    """The subject that replays ``argv``, the arguments it gets, and the subjects whose sessions follow."""
    subjects = [subject for subject in available() if subject.replay is not None]
    for subject in subjects:
        assert subject.replay is not None
        if subject.replay.option and subject.replay.option in argv:
            return subject, [arg for arg in argv if arg != subject.replay.option], []
    with_sessions = [subject for subject in subjects if subject.replay is not None and subject.replay.sessions]
    first = with_sessions[0] if with_sessions else subjects[0]
    files = [arg for index, arg in enumerate(argv) if _looks_like_file(arg, argv[index - 1] if index else "")]
    if files:
        for subject in subjects:
            assert subject.replay is not None
            if all(subject.replay.recognizes(name) for name in files):
                return subject, list(argv), []
        return first, list(argv), []
    return first, list(argv), ([] if argv else with_sessions[1:])


def unknown_schema(argv: Sequence[str]) -> "str | None":
    """One line for the first FILE argument whose ``schema`` names no subject's format (``subject.unknown_schema``),
    else None."""
    subjects = [subject for subject in available() if subject.replay is not None]
    for index, argument in enumerate(argv):
        if _looks_like_file(argument, argv[index - 1] if index else ""):
            problem = known_formats_only(argument, subjects, "replay")
            if problem is not None:
                return f"error: {problem}"
    return None


def replay_main(argv: "Sequence[str] | None" = None) -> int:
    # Text from a file is escaped when printed; this guards any path that forgot to (lone surrogates).
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    arguments = list(sys.argv[1:] if argv is None else argv)
    switches = {subject.replay.option for subject in available() if subject.replay is not None and subject.replay.option}
    # A subject's switch hands it the files whatever they carry; otherwise a schema no subject knows is named here.
    problem = None if switches & set(arguments) else unknown_schema(arguments)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    subject, own, following = chosen(arguments)
    assert subject.replay is not None
    status = subject.replay.run(own)
    for other in following:
        assert other.replay is not None
        print(flush=True)
        status = max(status, other.replay.run([]))
    return status


def main(argv: "Sequence[str] | None" = None) -> int:
    """Replay, under the verdict's memory limit (see the module docstring)."""
    from properties import workers

    workers.limit_memory(workers.memory_limit(1))
    try:
        return replay_main(argv)
    except (MemoryError, RecursionError, work_bound.ResourceExhausted) as error:
        name = work_bound.crash_name(error)
        running = f" while running {work_bound.running}" if work_bound.running else ""
        print(f"python -m properties.replay: {name}{running}: the replayed code ran out of "
              "memory or stack", file=sys.stderr)
        return 1
    except Exception as error:
        # A version that raises on the trace (a guard under review, say KeyError in one of its rules): one line
        # naming the exception and the line that raised it, exit 1, as for a version that exhausts its memory.
        print(f"python -m properties.replay: replaying {' '.join(argv if argv is not None else sys.argv[1:])} "
              f"raised {work_bound.raised(error)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
