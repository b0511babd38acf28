"""Progress of `normgrad check` / `bench` on stderr: a rich progress bar on a terminal, one plain line
per item when stderr is a file or a pipe (CI logs), so that stdout keeps only the tables."""

from __future__ import annotations

import sys
from typing import Any, TextIO


class Progress:
    """step(label) announces the item about to run; close() ends the bar.

    mode "bar": a rich bar (count, elapsed and remaining time, the label), erased by close();
    "lines": "[ 7/20] group_norm_grad/sd_unet float16" per step; "off": nothing.
    The default is "bar" when stream is a terminal and "lines" otherwise; enabled=False is "off".
    """

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None,
                 mode: str | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        if mode is None:
            mode = "off" if enabled is False else ("bar" if self.stream.isatty() else "lines")
        self.mode = mode
        self._bar: Any = None
        self._task: Any = None
        if self.mode == "bar" and total:
            self._start_bar()

    def _start_bar(self) -> None:
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:  # rich is a dependency; an install without it still gets progress
            self.mode = "lines"
            return
        console = Console(file=self.stream, force_terminal=True)
        self._bar = RichProgress(BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("{task.description}"), console=console, transient=True)
        self._task = self._bar.add_task("", total=self.total)
        self._bar.start()

    def step(self, label: str) -> None:
        if self.mode == "bar" and self._bar is not None:
            self._bar.update(self._task, completed=self.done, description=label)
        elif self.mode == "lines" and self.total:
            self.stream.write(f"[{self.done + 1:>{len(str(self.total))}}/{self.total}] {label}\n")
            self.stream.flush()
        self.done += 1

    def close(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
            self._bar.stop()
            self._bar = None
