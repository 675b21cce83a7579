"""The progress of a long run on stderr, under the line each case writes.

    [12/600] tiny-house 200 812 ms
    progress: 12/600 done, 143 calls/min, 3 retries, elapsed 0:05, about 4:07 left

On a terminal the progress line is the last line, rewritten in place after
each case's line (carriage return and erase-line); written elsewhere (a log
file, a pipe, make's output) it is a line of its own every ``every`` seconds
(5), so a log holds the same figures without a line per redraw. Calls and
retries come from the run's meter (budget.Meter) when it has one (a script
that calls a model); else cases stand for calls. The time left is the cases
left at this run's pace so far.

A case's line is shown through cli.printable: one line, its control
characters (a server's escape sequences) written as escapes.

What it does not do: draw on its own between cases (a line comes when a case
ends), or show anything with --quiet (the scripts do not make one then).
"""

import sys
import time

from ..cli import printable


def clock_text(seconds):
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    def __init__(self, total, done=0, meter=None, stream=None, clock=time.monotonic, every=5.0):
        self.total = total
        self.first = done       # cases done before this run
        self.done = done
        self.meter = meter
        self.stream = stream or sys.stderr
        self.clock = clock
        self.every = every
        self.started = clock()
        self.last = self.started
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.drawn = False

    def text(self):
        elapsed = self.clock() - self.started
        this_run = self.done - self.first
        calls = self.meter.calls if self.meter is not None else this_run
        parts = [f"{self.done}/{self.total} done",
                 f"{calls * 60 / elapsed:.0f} calls/min" if elapsed > 0 else "0 calls/min"]
        if self.meter is not None:
            retries = self.meter.attempts - self.meter.calls
            parts.append(f"{retries} retr{'y' if retries == 1 else 'ies'}")
        parts.append(f"elapsed {clock_text(elapsed)}")
        if this_run and self.done < self.total:
            parts.append(f"about {clock_text(elapsed / this_run * (self.total - self.done))} left")
        return "progress: " + ", ".join(parts)

    def case(self, line, done):
        """A case ended: its line, then the progress line as the stream allows."""
        self.done = done
        line = printable(line)
        if self.terminal:
            self.stream.write(f"\r\x1b[K{line}\n{self.text()}")
            self.drawn = True
        else:
            self.stream.write(line + "\n")
            now = self.clock()
            if now - self.last >= self.every:
                self.last = now
                self.stream.write(self.text() + "\n")
        self.stream.flush()

    def close(self):
        """End the line drawn in place, so what follows starts on its own."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
