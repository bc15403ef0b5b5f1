"""Writing a command's output file (``gen -o``, ``report -o``) so that nothing is lost: never over
one of the command's inputs, and through a temporary file renamed over the target once complete,
so that a failure, a full disk or an interrupt leaves the old file as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _is_special(path: Path) -> bool:
    """A path that exists and is not a regular file (a device, a pipe): it cannot be replaced by a
    rename, and must not be (/dev/null, /dev/stdout)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)


def write_output(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (reports/make.py's write_atomic), or straight to a device or
    a pipe.  OSError is the caller's to word."""
    from rulecheck.reports.make import write_atomic

    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    if _is_special(p):
        with open(p, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        return
    write_atomic(p, text)
