"""The progress line of a run on stderr: the command line's, and a factory of the runners'
``progress=`` keyword.

Standard library only: ``sklearn-rank --help`` imports it.
"""

import sys
import time

__all__ = ["ProgressLine"]


class ProgressLine:
    """A progress line on stderr, dependency-free: the progress display of a run.

    On a terminal, one line redrawn in place with a bar, the count, the elapsed time and an
    estimate of the remaining time. Elsewhere (a log file, a pipe, a test's capture), one
    plain line per step, since carriage returns would only clutter the log.

    The class is a factory of the ``progress=`` keyword of :func:`run_benchmark` and
    :func:`run_search` (``progress(total, what)``), the display of ``sklearn-rank cv`` and
    ``tune``; ``functools.partial(ProgressLine, enabled=False)`` shows nothing, as those
    functions' ``progress=None`` does.

    Parameters
    ----------
    total : int
        Number of steps.
    what : str
        What is being done, e.g. ``"cross-validation"``.
    enabled : bool, default=True
        False shows nothing (the command line's ``--quiet``).

    Attributes
    ----------
    done : int
        The steps done so far.
    tty : bool
        Whether the line is redrawn in place (enabled, and stderr is a terminal).

    Examples
    --------
    >>> import contextlib, io
    >>> from sklearn_rank.benchmark import ProgressLine
    >>> stream = io.StringIO()  # not a terminal: one plain line per step
    >>> with contextlib.redirect_stderr(stream):
    ...     progress = ProgressLine(2, "work")
    ...     progress.begin("(2 steps)")
    ...     progress.advance("step 1")
    >>> first, second = stream.getvalue().splitlines()
    >>> first
    'work: 0/2 (2 steps)'
    >>> second.startswith("work: 1/2 step 1 (")
    True
    """

    width = 24

    @property
    def stream(self):
        """``sys.stderr`` when written to: the fits hide the native standard error meanwhile
        (:func:`~sklearn_rank.benchmark._models.native_stderr_hidden`), and move Python's to a
        copy of it, which this follows."""
        return sys.stderr

    def __init__(self, total, what, *, enabled=True):
        self.total = total
        self.what = what
        self.enabled = enabled
        stream = sys.stderr
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.done = 0
        self.start = time.perf_counter()
        self._shown = 0

    def advance(self, detail=""):
        """Count one step done, and show it."""
        self.done += 1
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if not self.tty:
            self.stream.write(f"{self.what}: {self.done}/{self.total} {detail} "
                              f"({elapsed:.1f} s)\n".replace("  ", " "))
            self.stream.flush()
            return
        filled = round(self.width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (self.width - filled)
        left = elapsed / self.done * (self.total - self.done)
        eta = f", {left:.0f} s left" if self.done < self.total else ""
        text = f"{self.what} [{bar}] {self.done}/{self.total} ({elapsed:.0f} s{eta}) {detail}"
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def begin(self, detail=""):
        """Show the work begun, before its first step ends: the empty bar on a terminal,
        a line ``what: 0/total detail`` elsewhere."""
        if not self.enabled:
            return
        if not self.tty:
            self.stream.write(f"{self.what}: 0/{self.total} {detail}".rstrip() + "\n")
            self.stream.flush()
            return
        text = f"{self.what} [{'.' * self.width}] 0/{self.total} {detail}".rstrip()
        self.stream.write("\r" + text.ljust(self._shown))
        self.stream.flush()
        self._shown = len(text)

    def close(self):
        """End the line on a terminal, so that what follows starts on its own."""
        if self.tty and self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = 0
