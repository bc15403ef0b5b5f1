"""Files the toolkit reads, whatever the paths name: reads with a size bound (a device that never
ends, a huge file), and whether an output would overwrite one of the command's inputs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: A rulebook text is at most this large (docs/language.md, "Limits").
MAX_RULEBOOK_BYTES = 16 * 1024 * 1024
#: A JSON file written by ``rulecheck verify`` or ``rulecheck simulate`` is at most this large.
MAX_JSON_BYTES = 64 * 1024 * 1024


class FileProblem(Exception):
    """A file that cannot be read or written, in one line that names it, with a hint."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def read_bounded(path: str | Path, what: str, limit: int) -> bytes:
    """The bytes of a file, reading at most ``limit`` + 1 of them: one more than the limit is enough
    to refuse the file, even a device that never ends (/dev/zero)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise FileProblem(f"no such {what}: {path}") from None
    except IsADirectoryError:
        raise FileProblem(f"the {what} {path} is a directory", "name a file inside it") from None
    except OSError as exc:
        raise FileProblem(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise FileProblem(f"the {what} {path} is larger than {limit:,} bytes ({limit // (1024 * 1024)} MiB), the limit for a {what}",
                          f"check that {path} is the {what} you meant")
    return data


def read_text_bounded(path: str | Path, what: str, limit: int) -> str:
    """A UTF-8 text file, read with a size bound; a FileProblem names what is wrong."""
    data = read_bounded(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"the {what} {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                          "save it as UTF-8") from None


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (through links, relative parts or another spelling).  A path
    that does not exist names no file another path names, unless both are spelt alike."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        pass
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a name the system refuses
        return os.path.normpath(a) == os.path.normpath(b)


def refuse_overwriting_inputs(output: str, inputs: Iterable[tuple[str, str | None]]) -> None:
    """A FileProblem when the output path names one of the inputs (``(what, path)`` pairs; a path
    of None is an input not given): writing it would destroy the input."""
    for what, path in inputs:
        if path is not None and path != "-" and same_file(output, path):
            raise FileProblem(f"the output {output} is the {what} of this command; writing it would destroy the {what}",
                              "write the output to another file")
