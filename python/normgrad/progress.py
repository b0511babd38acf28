"""A one-line progress bar on stderr, drawn only when stderr is a terminal (logs stay clean)."""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    """[#######-------------]  7/20 group_norm_grad/sd_unet float16

    step(label) announces the item about to run; close() erases the bar.
    """

    WIDTH = 20

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._last = 0

    def step(self, label: str) -> None:
        if self.enabled and self.total:
            filled = self.WIDTH * self.done // self.total
            text = f"[{'#' * filled}{'-' * (self.WIDTH - filled)}] {self.done + 1:>{len(str(self.total))}}/" \
                   f"{self.total} {label}"
            self.stream.write("\r" + text.ljust(self._last))
            self.stream.flush()
            self._last = len(text)
        self.done += 1

    def close(self) -> None:
        if self.enabled and self._last:
            self.stream.write("\r" + " " * self._last + "\r")
            self.stream.flush()
            self._last = 0
