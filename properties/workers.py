"""Forked worker processes for the verdict's drivers, each under a memory limit (issue 25).

``concurrent.futures.ProcessPoolExecutor`` turned one dead worker into a
``BrokenProcessPool`` traceback that lost every other driver's result. Here
each worker is a forked child that claims tasks one at a time (in the order
given: costly first) and says which task it claimed before running it, so
when a worker dies (out of memory, a signal, a crash of the interpreter) the
parent knows exactly what it was running. That task ends as a ``Death``,
reported on one line by the caller; a fresh worker takes the tasks nobody
claimed yet, and every other result is reported as usual.

Every worker, and the process that runs ``python -m properties`` itself (it
runs the explorer, whose children inherit the limit), runs under
``memory_limit()`` bytes of data (``LIMITED``): past it an allocation fails with
``MemoryError`` inside Python, which the driver reports as its crash, instead
of the kernel's out-of-memory killer ending whichever process it picks.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import threading
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Sequence, cast

import attrs

from properties import work_bound

#: The share of the machine's memory the verdict's processes may hold together (the rest: the system, an editor).
MACHINE_SHARE = 0.8
#: No worker is limited below this: the thorough proof's explorer holds 1.5 GB.
FLOOR = 2 << 30


@attrs.frozen
class Death:
    """A worker that died while running a task: how it ended, in words."""

    reason: str


def machine_memory() -> int:
    """Bytes of physical memory (``/proc/meminfo``'s MemTotal, else the page count)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def memory_limit(processes: int) -> int:
    """Data bytes for each of ``processes`` processes running side by side: an equal share of 80% of memory."""
    return max(FLOOR, int(machine_memory() * MACHINE_SHARE) // max(1, processes))


#: What the limit bounds: the process's data (heap and private writable mappings: everything Python and numpy
#: allocate). Not its whole address space: reservations that are never written (thread stacks' guard pages,
#: a browser's sandbox cage, started by a test from a limited process) would count there without using memory.
LIMITED = resource.RLIMIT_DATA


def limit_memory(limit: int) -> None:
    """Limit this process (and every process it starts from now on) to ``limit`` bytes of data.

    Never raises the hard limit, and never lowers a limit already below ``limit``."""
    soft, hard = resource.getrlimit(LIMITED)
    wanted = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > wanted:
        resource.setrlimit(LIMITED, (wanted, hard))


def how_it_ended(exitcode: "int | None") -> str:
    if exitcode is None:
        return "the worker vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (the kernel's out-of-memory killer sends it)" if -exitcode == signal.SIGKILL else ""
        return f"the worker was killed by {name}{hint}"
    return f"the worker exited with status {exitcode} before it reported"


NOTE_BYTES = 240


def _work(tasks: Sequence[Any], run: Callable[[Any], Any], claim: Any, connection: Connection, limit: int,
          note: Any) -> None:
    limit_memory(limit)

    def keep(text: str) -> None:
        note.value = text.encode("utf-8", "replace")[: NOTE_BYTES - 1]

    work_bound.send_running_to(keep)
    while True:
        with claim.get_lock():
            index = claim.value
            claim.value = index + 1
        if index >= len(tasks):
            break
        keep("")
        connection.send(("claimed", index))
        connection.send(("done", index, run(tasks[index])))
    connection.close()


class Workers:
    """``count`` forked workers running ``run`` over ``tasks``; ``results()`` gives every task's outcome or Death.

    Started by the constructor (in the calling thread, before anything else
    runs, so no other thread is alive at the fork); a reader thread keeps
    their pipes drained while the caller does its own work."""

    def __init__(self, tasks: Sequence[Any], run: Callable[[Any], Any], count: int, limit: int) -> None:
        self.tasks, self.run, self.limit = list(tasks), run, limit
        self.context = multiprocessing.get_context("fork")
        self.claim = self.context.Value("i", 0)
        self.outcomes: dict[int, Any] = {}
        self.claimed: dict[Connection, int] = {}
        self.processes: dict[Connection, Any] = {}
        #: What each worker last said it was running (``work_bound.note_running``), readable after it died.
        self.notes: dict[Connection, Any] = {}
        for _ in range(min(count, len(self.tasks))):
            self.start_one()
        self.reader = threading.Thread(target=self.read_all, name="worker results", daemon=True)
        self.reader.start()

    def start_one(self) -> None:
        mine, theirs = self.context.Pipe(duplex=False)
        note = self.context.Array("c", NOTE_BYTES, lock=False)
        # Not a daemon: a driver may fork processes of its own (the explorer's side-by-side configurations).
        process = self.context.Process(target=_work, args=(self.tasks, self.run, self.claim, theirs, self.limit, note))
        process.start()
        theirs.close()
        self.processes[mine] = process
        self.notes[mine] = note

    def read_all(self) -> None:
        while self.processes:
            # wait() hands back the very connections it was given.
            for connection in cast("list[Connection]", wait(list(self.processes))):
                try:
                    message = connection.recv()
                except (EOFError, OSError):
                    self.ended(connection)
                    continue
                if message[0] == "claimed":
                    self.claimed[connection] = message[1]
                else:
                    self.outcomes[message[1]] = message[2]
                    self.claimed.pop(connection, None)

    def ended(self, connection: Connection) -> None:
        process = self.processes.pop(connection)
        process.join()
        connection.close()
        index = self.claimed.pop(connection, None)
        note = self.notes.pop(connection).value.decode("utf-8", "replace")
        if index is not None and index not in self.outcomes:
            self.outcomes[index] = Death(how_it_ended(process.exitcode) + (f", while running {note}" if note else ""))

    def results(self) -> list[Any]:
        """Every task's outcome (or ``Death``), in the order the tasks were given; waits for all of them.

        The surviving workers go on claiming tasks after one dies; only when every worker died with tasks
        left unclaimed are fresh workers forked for those, here, in the caller's thread (never from the
        reader thread: a fork beside a running thread can copy a lock that thread holds)."""
        self.reader.join()
        left = self.claim.value
        if left < len(self.tasks):
            rest = Workers(self.tasks[left:], self.run, 1, self.limit).results()
            self.outcomes.update({left + offset: outcome for offset, outcome in enumerate(rest)})
        return [self.outcomes[index] for index in range(len(self.tasks))]
