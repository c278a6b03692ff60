"""A one-line progress bar: redrawn in place on a terminal; elsewhere (a log, CI) only each
epoch's final line is printed, so logs stay short."""
import sys
import time


class ProgressBar:
    def __init__(self, total, label, width=30, stream=None):
        self.total, self.label, self.width = total, label, width
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.start = time.perf_counter()
        self.done = 0

    def update(self, n=1, **info):
        self.done += n
        if self.live or self.done >= self.total:
            self._draw(info, final=self.done >= self.total)

    def _draw(self, info, final):
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        extra = " ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in info.items())
        line = f"{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s {extra}"
        self.stream.write(("\r" if self.live else "") + line + ("\n" if final else ""))
        self.stream.flush()
