"""``nox -s replay -- FILE ...``: each file's own replay, then, for a file the review saved, BASE beside HEAD.

The replay proper (``python -m properties.replay``) judges a file against the
reference with every invariant. A file the review saved as a distinguishing
item (its origin reads ``review base=... head=...``) also has a second story,
how BASE's guard and HEAD's differ on it, which ``python -m properties.review
--show FILE`` prints. This entry point runs the first and then the second, so a
reviewer who pastes the replay command from ``review.md`` sees both.

Exit status: the replay's (0 held, 1 an invariant broke, 2 a bad file); a
review file whose BASE cannot be shown (the commit is not in this clone, say)
adds a one-line note on stderr and status 2, because the reviewer asked for
something that was not shown.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Sequence

from properties.paths import ROOT
from properties.review.behaviour import review_origin


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    status = subprocess.run([sys.executable, "-m", "properties.replay", *arguments], cwd=ROOT).returncode
    files = [Path(argument) for argument in arguments if not argument.startswith("-")]
    for file in files:
        if review_origin(file) is None:
            continue
        print(f"\n== {file}: BASE beside HEAD", flush=True)
        shown = subprocess.run([sys.executable, "-m", "properties.review", "--show", str(file)], cwd=ROOT).returncode
        if shown != 0:
            status = max(status, shown)
    return status


if __name__ == "__main__":
    sys.exit(main())
