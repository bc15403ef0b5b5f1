"""What the command line shows on a terminal: progress of long runs and coloured diagnostics (rich).

Progress always goes to stderr, so that stdout holds the result alone (text, JSON or SARIF). On a
terminal it is rich's bar with the rate and the time left, cleared when the run ends; elsewhere (a
pipe, a CI log) it is a plain line every few seconds. Nothing runs in a thread of its own: the
display is redrawn when the run reports progress, because verify forks its workers from the main
thread and a thread holding a lock at the fork would leave that lock held in the worker.

Colours follow rich's rules: only on a terminal, never with NO_COLOR set (https://no-color.org),
nor with TERM=dumb; FORCE_COLOR turns them on. Without colour the text is byte for byte the plain
rendering the golden files hold.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.text import Text

#: Seconds between two progress lines when stderr is not a terminal.
LINE_INTERVAL = 5.0
#: Seconds between two redraws of the bar on a terminal (an update in between only counts).
REDRAW_INTERVAL = 0.1


def console(stream: TextIO) -> Console:
    # soft_wrap: never insert line breaks of rich's own; the width of a pipe is unknown
    return Console(file=stream, highlight=False, soft_wrap=True, emoji=False, markup=False)


def colours_on(stream: TextIO) -> bool:
    """Whether text written to ``stream`` may be coloured (see the module docstring)."""
    c = console(stream)
    return c.is_terminal and not c.no_color and c.color_system is not None and not c.is_dumb_terminal


def interactive(stream: TextIO) -> bool:
    """Whether a bar redrawn in place suits ``stream`` (a terminal that is not dumb)."""
    c = console(stream)
    return c.is_terminal and not c.is_dumb_terminal


class _Rate(ProgressColumn):
    """Units per second, in the run's unit ("games/s")."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{_rate(speed)} {self.unit}/s" if speed else f"– {self.unit}/s", style="progress.data.speed")


def _rate(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}" if x >= 0.1 else f"{x:.2f}"


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class Reporter:
    """The progress of one run of ``total`` steps (games, checks) told to ``stream``.

    ``update(done, detail)`` after each step that ends; ``close()`` (or leaving the ``with`` block)
    at the end. ``clock`` is there for tests, which must not depend on the time a run takes."""

    def __init__(self, stream: TextIO, action: str, total: int | None, unit: str, *, clock: Callable[[], float] = time.monotonic,
                 tty: bool | None = None) -> None:
        self.stream, self.action, self.total, self.unit, self.clock = stream, action, total, unit, clock
        self.start = clock()
        self.done = 0
        self.last_line = self.start
        self.last_draw = float("-inf")
        self.closed = False
        self.bar: Progress | None = None
        if interactive(stream) if tty is None else tty:
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                                _Rate(unit), TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[detail]}"),
                                console=console(stream), transient=True, auto_refresh=False, get_time=clock)
            self.task = self.bar.add_task(action, total=total, detail="")
            self.bar.start()
            self.bar.refresh()
        else:
            self._line(f"{action}: {total} {unit} to go" if total is not None else f"{action}: started")

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close(finished=kind is None)

    def update(self, done: int, detail: str = "", total: int | None = None) -> None:
        """``done`` steps of ``total`` (given here when it was not known at the start)."""
        self.done = done
        if total is not None and total != self.total:
            first = self.total is None
            self.total = total
            if self.bar is not None:
                self.bar.update(self.task, total=total)
            elif first:
                self._line(f"{self.action}: {total} {self.unit} to go")
        now = self.clock()
        if self.bar is not None:
            self.bar.update(self.task, completed=done, detail=detail)
            if now - self.last_draw >= REDRAW_INTERVAL or (self.total is not None and done >= self.total):
                self.last_draw = now
                self.bar.refresh()
            return
        if self.total is not None and now - self.last_line >= LINE_INTERVAL and done < self.total:
            self.last_line = now
            elapsed = now - self.start
            rate = done / elapsed if elapsed > 0 else 0.0
            left = f", about {_duration((self.total - done) / rate)} left" if rate > 0 else ""
            what = f" ({detail})" if detail else ""
            self._line(f"{self.action}: {done}/{self.total} {self.unit} ({100 * done // max(1, self.total)}%), "
                       f"{_rate(rate)} {self.unit}/s{left}{what}")

    def close(self, finished: bool = True) -> None:
        """Clear the bar (on a terminal) and say how long the run took."""
        if self.closed:
            return
        self.closed = True
        if self.bar is not None:
            self.bar.stop()  # transient: the bar is erased, the cursor back where it was
        if finished:
            of = f"/{self.total}" if self.total is not None else ""
            self._line(f"{self.action}: {self.done}{of} {self.unit} in {_duration(self.clock() - self.start)}")

    def _line(self, text: str) -> None:
        self.stream.write(f"rulecheck: {text}\n")
        self.stream.flush()


# ---- colours ----------------------------------------------------------------------------------------

_SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan", "help": "bold green"}
# "file:line:col: error[E0201]: ..." heads, "note[kind]" of verify, the "= help:" lines
_HEAD = re.compile(r"^(?P<loc>\S+?: )?(?P<sev>error|warning|note)(?P<code>\[[^\]\n]+\])", re.M)
_HELP = re.compile(r"^(?P<pad> *\S* *= )(?P<sev>help|note)(?=:)", re.M)
_GUTTER = re.compile(r"^(?P<gutter> *\d* \|)", re.M)
_CARETS = re.compile(r"^ *\| *(?P<carets>\^+)$", re.M)


def styled(text: str) -> Text:
    """Diagnostics and verify's text with the severities, gutters and carets coloured."""
    t = Text(text)
    for m in _HEAD.finditer(text):
        if m.group("loc"):
            t.stylize("bold", m.start("loc"), m.end("loc"))
        t.stylize(_SEVERITY_STYLE[m.group("sev")], m.start("sev"), m.end("code"))
    for m in _HELP.finditer(text):
        t.stylize(_SEVERITY_STYLE[m.group("sev")], m.start("sev"), m.end("sev"))
    for m in _GUTTER.finditer(text):
        t.stylize("blue", m.start("gutter"), m.end("gutter"))
    for m in _CARETS.finditer(text):
        t.stylize("bold red", m.start("carets"), m.end("carets"))
    return t


def write(stream: TextIO, text: str) -> None:
    """Write diagnostics (or verify's text) to ``stream``: coloured where colours are on, plain elsewhere."""
    if not colours_on(stream):
        stream.write(text)
        return
    console(stream).print(styled(text), end="")
