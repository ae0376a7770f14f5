"""The budget subject of the verdict (see subject.py)."""
