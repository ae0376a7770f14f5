"""The exhaustive engine's subject-free parts; a subject's explorer supplies its own model.

So far this holds the check of declared symmetries (``symmetry``); the
budget's explorer (``properties.budget.explorer``) is the one model using it.
"""
