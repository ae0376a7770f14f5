"""The catalogue's fast path: entries judged in forks of a warm process, the edit swapped into live code.

The cold path (``mutations.scratch``) pays, per entry, for a copy of the
project, one fresh interpreter for the property drivers and another for
pytest, which imports the project again and collects all 1,500 tests again:
about four seconds before the first check runs, and most entries are killed
within a second of that. mutmut avoids the same cost by forking a process that
has imported and collected everything once; this module does the same for the
catalogue.

A *server* (``python -m mutations.warm``, one per catalogue worker) runs in its
own scratch copy, imports the project, the property drivers and pytest, and
collects the suite once. Per entry it forks twice, once per suite: the child
swaps the mutated functions' code into the live function objects
(``live_patch``), runs the drivers (``python -m properties --mutants``, in
process) or pytest (``-x``, in process), writes its outcome and exits. Each
child starts from the unmutated server, so no entry sees another's edit.

Swapping ``__code__`` reaches every caller, including modules that imported
the function by name, so the child runs exactly the mutated text for every
function the edit touches. Only edits confined to function and method bodies
qualify (``changed_functions``); an edit to a constant, a default, an attrs
field, a decorator or a signature changes objects made when the module was
imported, and such entries go the cold way.

What the warm path may decide, and what it may not:

* a warm *kill* is a real kill: a test failed, or an invariant broke, while
  the mutated code ran. It counts only after the server's own unmutated
  baseline (the same two forks, no edit) passed both suites.
* a warm *survival* decides nothing. A test that runs the project in a
  subprocess (the CLI tests) sees the files on disk, not the swapped code, so
  a survivor is judged again on the cold path, and its verdict is the cold one.
"""

from __future__ import annotations

import __future__
import ast
import contextlib
import io
import json
import os
import signal
import sys
import time
import types
from pathlib import Path
from typing import Any

from properties import work_bound

#: The compiler flag of ``from __future__ import annotations``: a patched body compiles as its module did.
_ANNOTATIONS = __future__.annotations.compiler_flag


class NotPatchable(Exception):
    """The edit changes more than function bodies, or the live function cannot take the new code."""


# -- which functions an edit changes -------------------------------------------------------------


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Everything evaluated when the ``def`` runs: decorators, arguments with their defaults, annotations."""
    return "".join(
        ast.dump(part) for part in (*node.decorator_list, node.args, *(x for x in (node.returns,) if x is not None))
    )


def _class_header(node: ast.ClassDef) -> str:
    return "".join(ast.dump(part) for part in (*node.decorator_list, *node.bases, *node.keywords))


def _same_def(old: ast.stmt, new: ast.stmt) -> bool:
    return (isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef)) and type(old) is type(new)
            and old.name == new.name and _header(old) == _header(new))


def changed_functions(original: str, mutated: str) -> list[tuple[str | None, str, ast.stmt]]:
    """(class or None, function, its new ``def``) for each function whose body the edit changes.

    NotPatchable when anything else differs: a module-level statement, a class
    attribute, a decorator, an argument or default, or a statement added or
    removed outside a function body. ``ast.dump`` leaves line numbers out, so
    the functions an edit merely moves down compare equal.
    """
    old_tree, new_tree = ast.parse(original), ast.parse(mutated)
    if len(old_tree.body) != len(new_tree.body):
        raise NotPatchable("the edit adds or removes a module-level statement")
    changed: list[tuple[str | None, str, ast.stmt]] = []
    for old, new in zip(old_tree.body, new_tree.body):
        if ast.dump(old) == ast.dump(new):
            continue
        if _same_def(old, new):
            changed.append((None, old.name, new))  # type: ignore[attr-defined]
            continue
        if (isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef) and old.name == new.name
                and _class_header(old) == _class_header(new) and len(old.body) == len(new.body)):
            for old_item, new_item in zip(old.body, new.body):
                if ast.dump(old_item) == ast.dump(new_item):
                    continue
                if not _same_def(old_item, new_item):
                    raise NotPatchable(f"the edit changes class {old.name} outside its methods' bodies")
                changed.append((old.name, old_item.name, new_item))  # type: ignore[attr-defined]
            continue
        raise NotPatchable(f"the edit changes a module-level statement at line {old.lineno}")
    if not changed:
        raise NotPatchable("the edit changes no function body")
    return changed


def _code_objects(mutated: str, filename: str, flags: int) -> dict[tuple[str, int], types.CodeType]:
    """Every function's code in the whole mutated file, by (qualified name, first line).

    Compiled as one module, as an import would compile it: the compiler's
    output for a function depends on its module (a call on a name bound by
    ``import`` compiles differently from one on any other global), so only
    the whole file gives exactly the code the mutated file would run.
    """
    found: dict[tuple[str, int], types.CodeType] = {}
    # Counted as an import of the mutated file would be (``properties.work_bound``): a mutated loop that never
    # ends is then the verdict's runaway, not a hang of the warm fork.
    pending = [work_bound.compile_counted(mutated, filename, flags)]
    while pending:
        code = pending.pop()
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                found[(const.co_qualname, const.co_firstlineno)] = const
                pending.append(const)
    return found


def _first_line(definition: ast.stmt) -> int:
    """Where the compiler starts a function's code: its first decorator, else its ``def``."""
    decorators = definition.decorator_list  # type: ignore[attr-defined]
    return decorators[0].lineno if decorators else definition.lineno


def _live_function(module: types.ModuleType, owner: str | None, definition: ast.stmt) -> types.FunctionType:
    """The function object the module holds for that ``def``, through property/staticmethod/classmethod."""
    name = definition.name  # type: ignore[attr-defined]
    namespace = vars(module) if owner is None else vars(getattr(module, owner))
    found = namespace.get(name)
    decorators = [ast.unparse(decorator) for decorator in definition.decorator_list]  # type: ignore[attr-defined]
    if isinstance(found, property) and owner is not None:
        if decorators == ["property"]:
            found = found.fget
        elif decorators == [f"{name}.setter"]:
            found = found.fset
        else:
            raise NotPatchable(f"{owner}.{name}: a property with decorators {decorators}")
    elif isinstance(found, (staticmethod, classmethod)) and owner is not None and decorators in (["staticmethod"], ["classmethod"]):
        found = found.__func__
    elif decorators:
        raise NotPatchable(f"{owner + '.' if owner else ''}{name}: decorated with {decorators}")
    if not isinstance(found, types.FunctionType) or found.__code__.co_name != name:
        raise NotPatchable(f"{module.__name__}.{owner + '.' if owner else ''}{name}: no plain function of that name")
    return found


def live_patch(module: types.ModuleType, original: str, mutated: str) -> list[str]:
    """Swap the mutated bodies into ``module``'s live functions; returns their names. NotPatchable: nothing swapped."""
    filename = getattr(module, "__file__", None) or "<catalogue>"
    flags = _ANNOTATIONS if "from __future__ import annotations" in original else 0
    planned = []
    codes = None
    for owner, name, definition in changed_functions(original, mutated):
        function = _live_function(module, owner, definition)
        if codes is None:
            codes = _code_objects(mutated, filename, flags)
        code = codes.get((f"{owner}.{name}" if owner else name, _first_line(definition)))
        if code is None:
            raise NotPatchable(f"{function.__qualname__}: its code was not found in the compiled mutated file")
        if code.co_freevars != function.__code__.co_freevars:
            raise NotPatchable(f"{function.__qualname__}: its closure would change ({function.__code__.co_freevars} -> {code.co_freevars})")
        planned.append((function, code))
    for function, code in planned:
        function.__code__ = code
    return [function.__qualname__ for function, _code in planned]


def patchable(root: Path, entry: Any) -> str | None:
    """None when ``entry`` can be judged warm; else why not (one line)."""
    try:
        original = (root / entry.file).read_text(encoding="utf-8")
        changed_functions(original, entry.applied(original))
    except NotPatchable as error:
        return str(error)
    except Exception as error:  # an entry that does not apply is reported by the cold path, with its reason
        return f"{type(error).__name__}: {error}"
    return None


# -- the server ----------------------------------------------------------------------------------------

def _pytest_args() -> list[str]:
    """pytest options of the warm children: exactly the cold path's (``scratch.PYTEST_ARGS`` and ``-x``)."""
    from mutations.scratch import PYTEST_ARGS

    return [*PYTEST_ARGS, "-x"]


def _warm_up(root: Path, collect: dict[str, Any] | None) -> None:
    """Import what every child needs and collect the suite once, so that the forks inherit it.

    ``collect`` (``{"args": [...], "tests": [...]}``) narrows the server to some test files with their own pytest
    options, as the review's stage 0 runs mutmut's mutants (``mutmut_layer.kill_near``): only those files are
    collected, and the property drivers are not imported. A collection that fails raises ``ServerError``."""
    import importlib

    import pytest

    if collect is not None:
        with contextlib.redirect_stdout(io.StringIO()) as shown:
            code = pytest.main(["--collect-only", "-q", *collect["args"], *collect["tests"]])
        if code != 0:
            raise ServerError(f"pytest exit {code} collecting {len(collect['tests'])} test files: "
                              + (shown.getvalue().strip().splitlines() or [""])[-1])
        return
    for path in sorted((root / "guard").glob("*.py")):
        importlib.import_module(f"guard.{path.stem}" if path.stem != "__init__" else "guard")
    importlib.import_module("properties.__main__")
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(["--collect-only", "-q", *_pytest_args()])


def _run_properties(seed: int, out: Path, first: str | None, subjects: str | None = None) -> tuple[int | None, str]:
    from properties.__main__ import main

    buffer = io.StringIO()
    previous = Path.cwd()
    out.mkdir(parents=True, exist_ok=True)
    os.chdir(out)
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            try:
                code = main(["--mutants", "--seed", str(seed), *(("--first", first) if first else ()),
                             *(("--subject", subjects) if subjects else ())])
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
    finally:
        os.chdir(previous)
    return code, buffer.getvalue()


def _run_pytest(priority: list[str], scratch_dir: Path, tests: list[str], args: list[str] | None = None,
                stop_at_first: bool = True) -> tuple[int | None, str]:
    """pytest over ``tests`` in process: the catalogue's options (``_pytest_args``), or ``args`` with ``-x`` when
    ``stop_at_first`` (the review's stage 0, in mutmut's ``mutants/`` copy with mutmut's own options)."""
    import pytest

    options = _pytest_args() if args is None else [*args, *(("-x",) if stop_at_first else ()), "--tb=short"]
    if priority:
        first = scratch_dir / "priority-tests.txt"
        first.write_text("".join(f"{test}\n" for test in priority), encoding="utf-8")
        os.environ["MUTATIONS_PRIORITY"] = str(first)
    else:
        os.environ.pop("MUTATIONS_PRIORITY", None)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        code = int(pytest.main([*options, *tests]))
    return code, buffer.getvalue()


def _child(job: dict[str, Any], result_path: Path) -> None:
    """In the fork: patch, run one suite, write the outcome as JSON. Never returns."""
    code = 70
    try:
        scratch_dir = Path(job["scratch"])
        killers = scratch_dir / f"{job['suite']}-failures.tsv"
        killers.unlink(missing_ok=True)
        os.environ["MUTANT_UNDER_TEST"] = job["label"]
        os.environ["MUTATIONS_KILLERS_FILE"] = str(killers)
        if job.get("durations"):
            os.environ["MUTATIONS_DURATIONS"] = str(job["durations"])
        patched: list[str] = []
        if job.get("file"):
            import importlib

            module = importlib.import_module(job["file"][:-3].replace("/", "."))
            patched = live_patch(module, job["original"], job["mutated"])
        started = time.monotonic()
        if job["suite"] == "properties":
            exit_code, output = _run_properties(job["seed"], scratch_dir / "properties-out", job.get("first"),
                                                job.get("subjects"))
        else:
            exit_code, output = _run_pytest(job.get("priority", []), scratch_dir, job.get("tests", []), job.get("args"),
                                            job.get("stop_at_first", True))
        if job.get("log"):
            Path(job["log"]).parent.mkdir(parents=True, exist_ok=True)
            Path(job["log"]).write_text(output, encoding="utf-8")
        from mutations.scratch import read_failures, tail, violated_invariant

        failures = read_failures(killers)
        outcome = {"exit_code": exit_code, "output_tail": tail(output),
                   "invariant": violated_invariant(output) if exit_code not in (0, None) else None,
                   "seconds": time.monotonic() - started, "failures": failures, "patched": patched,
                   "verdict_line": _verdict_line(output)}
        result_path.write_text(json.dumps(outcome), encoding="utf-8")
        code = 0
    except NotPatchable as error:
        result_path.write_text(json.dumps({"not_patchable": str(error)}), encoding="utf-8")
        code = 0
    except BaseException as error:  # the child must never fall back into the server's loop
        with contextlib.suppress(Exception):
            result_path.write_text(json.dumps({"crashed": f"{type(error).__name__}: {error}",
                                               "raised_in": raised_in(error)}), encoding="utf-8")
    finally:
        os._exit(code)


def raised_in(error: BaseException) -> str:
    """The module whose code raised ``error`` (its innermost frame's ``__name__``; "" if none).

    The verdict-alone report tells a guard that raises before any driver ran (a mutant that makes
    ``guard/`` fail at import: the verdict then fails too) from the harness's own failure by it. The
    module's name, not its file: a verdict taken from another revision imports the mutants from elsewhere."""
    frame = None
    trace = error.__traceback__
    while trace is not None:
        frame, trace = trace.tb_frame, trace.tb_next
    return str(frame.f_globals.get("__name__", "")) if frame is not None else ""


def _verdict_line(output: str) -> str:
    """The verdict's own summary line (``verdict: FAIL (H5 vacuous; ...)``), "" when it printed none."""
    lines = [line for line in output.splitlines() if line.startswith("verdict: ")]
    return lines[-1] if lines else ""


def serve(root: Path, collect: dict[str, Any] | None = None) -> int:
    """Read one JSON job per line on stdin; fork a child per job; answer one JSON line per job on stdout.

    ``collect``: see ``_warm_up`` (the command line's one argument, as JSON)."""
    answers = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    # Whatever the project prints while warming up or in a child must not reach the protocol stream.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        _warm_up(root, collect)
    except BaseException as error:
        answers.write(json.dumps({"ready": False, "error": f"{type(error).__name__}: {error}"}) + "\n")
        return 1
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        result_path = Path(job["scratch"]) / f"{job['suite']}-outcome.json"
        result_path.unlink(missing_ok=True)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(job, result_path)
        status = _wait(pid, float(job["timeout"]))
        if status is None:
            outcome: dict[str, Any] = {"timed_out": True}
        else:
            try:
                outcome = json.loads(result_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                outcome = {"crashed": f"the child exited with status {status} and no outcome"}
        outcome["wall"] = time.monotonic() - started
        answers.write(json.dumps(outcome) + "\n")
    return 0


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit status, or None after killing it at ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


# -- the client (the catalogue runner's side) ----------------------------------------------------


class ServerError(Exception):
    """The warm server did not start or stopped answering; the entries it would have judged go cold."""


class Server:
    """One warm server on its own scratch copy; ``judge`` runs one suite in a fork of it."""

    def __init__(self, copy: Path, durations: Path | None, startup_timeout: float = 300.0,
                 shared: Path | None = None, collect: dict[str, Any] | None = None) -> None:
        """``collect``: only these test files, with these pytest options (``_warm_up``)."""
        import subprocess

        from mutations import scratch

        self.copy = copy
        env = scratch.environment(copy, "catalogue:warm-server", None, durations)
        if shared is not None:  # a copy that is not a scratch copy (mutmut's mutants/) has no shared/ beside it
            env["GUARD_SHARED"] = str(shared)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mutations.warm", *((json.dumps(collect),) if collect is not None else ())],
            cwd=copy, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1,
        )
        started = time.monotonic()
        answer = self._answer(startup_timeout)
        if not answer.get("ready"):
            self.close()
            raise ServerError(f"the warm server did not start: {answer.get('error', 'no answer')}")
        self.startup_seconds = time.monotonic() - started

    def _answer(self, timeout: float) -> dict[str, Any]:
        import select

        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise ServerError("the warm server stopped answering")
        return json.loads(line)

    def judge(self, suite: str, label: str, scratch_dir: Path, seed: int, timeout: float, *, file: str | None = None,
              original: str = "", mutated: str = "", priority: list[str] | None = None,
              first: str | None = None, tests: list[str] | None = None, subjects: str | None = None,
              args: list[str] | None = None, stop_at_first: bool = True, log: Path | None = None,
              durations: Path | None = None) -> dict[str, Any]:
        """One suite (``"properties"`` or ``"pytest"``) on the live code, with ``file`` patched when given.

        ``label`` becomes the child's ``MUTANT_UNDER_TEST``: in mutmut's ``mutants/`` copy that alone selects a
        mutant (its trampolines read the variable on every call), with nothing patched. ``subjects``: the
        verdict's ``--subject`` (default every subject). ``args``: pytest's options instead of the catalogue's
        (then ``-x`` only when ``stop_at_first``); ``log``: where the child writes pytest's whole output;
        ``durations``: the child's ``MUTATIONS_DURATIONS`` (a missing file: no per-test deadlines)."""
        job = {"suite": suite, "label": label, "scratch": str(scratch_dir), "seed": seed, "timeout": timeout,
               "file": file, "original": original, "mutated": mutated, "priority": priority or [], "first": first,
               "tests": tests or [], "subjects": subjects, "args": args, "stop_at_first": stop_at_first,
               "log": str(log) if log is not None else None,
               "durations": str(durations) if durations is not None else None}
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ServerError(f"the warm server is gone: {error}") from None
        return self._answer(timeout + 60.0)

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()


if __name__ == "__main__":
    raise SystemExit(serve(Path.cwd(), json.loads(sys.argv[1]) if len(sys.argv) > 1 else None))
