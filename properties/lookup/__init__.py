"""The lookup subject of the verdict (see subject.py)."""
