"""``python -m properties.budget.explorer``: the explorer's command line (``run.main``)."""

import sys

from properties.budget.explorer.run import main

sys.exit(main())
