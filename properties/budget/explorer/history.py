"""The monitor's history as the explorer keeps it: its feature and admission keys, and restoring it into a monitor."""

from __future__ import annotations


from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.budget.monitor import Monitor
from properties.catalogue import Tally


def _history_keys() -> tuple[tuple[str, ...], tuple[str, ...]]:
    fresh = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()))
    assert tuple(fresh.admissions) == tuple(fresh.streak_admissions) == tuple(fresh.streak_fuse)
    return tuple(fresh.feature_used), tuple(fresh.admissions)


FEATURE_KEYS, ADMISSION_KEYS = _history_keys()


def restore_history(monitor: Monitor, history: tuple) -> None:
    """Set a monitor's history to ``history`` (as ``Monitor.history()`` returned it)."""
    monitor.restore_history(history)
