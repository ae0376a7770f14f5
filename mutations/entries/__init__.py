"""Layer 2 entries, one module per subject (see ``mutations.catalogue``)."""
