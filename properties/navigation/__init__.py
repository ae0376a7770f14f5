"""The navigation subject of the verdict (see subject.py)."""
