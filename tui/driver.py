"""The terminal driver: Textual's Linux driver, with an input thread that tells a lone `escape` in time.

A lone escape byte may be the `escape` key or the start of a sequence (an arrow key); Textual's parser
decides by a timeout (`ESCDELAY`, ms) that it checks only when its input thread wakes. Textual's thread
waits for input 100 ms at a time, so `escape` (leave the instance, leave the editor) always cost at least
100 ms, whatever `ESCDELAY` said. This thread waits only until the parser's own deadline when one is
pending, so `escape` is told after `ESCDELAY` and no later.

`ESCDELAY` defaults to 25 ms here (Textual's default is 100; neovim's `ttimeoutlen` is 50, and tmux users
set `escape-time` to 10-20): the bytes of one key arrive in one write even over ssh. A user's own
`ESCDELAY` is kept. It must be in the environment before Textual is imported: `tui.entry` sets it.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

# How long the thread sleeps when no escape is pending (Textual's own figure): it also bounds how long
# `exit_event` goes unseen.
IDLE_WAIT_S = 0.1


def wait_s(deadline: float | None, now: float) -> float:
    """How long to wait for input: until the parser's pending deadline (if any), at most IDLE_WAIT_S."""
    if deadline is None:
        return IDLE_WAIT_S
    return min(IDLE_WAIT_S, max(0.0, deadline - now))


class QuickEscapeDriver(LinuxDriver):
    # When input last came (get_time's clock): the workbench runs full garbage collections in pauses
    # (tui.heap.collect_when_idle).
    last_input = 0.0

    def idle_s(self) -> float:
        """Seconds since input last came."""
        return get_time() - self.last_input

    def run_input_thread(self) -> None:
        """Textual's loop (read, feed the parser, tick its timeouts) with the wait cut to the deadline."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(events: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for index, (_key, mask) in enumerate(events):
                if mask & selectors.EVENT_READ:
                    self.last_input = get_time()
                    data = decode(os.read(self.fileno, 4096), final=final and index == len(events) - 1)
                    if not data:  # stdin piped and closed
                        break
                    for event in parser.feed(data):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                # `_timeout_time` is the parser's deadline for the byte after a lone escape, on the clock
                # its `tick` reads; Textual has no public accessor for it.
                process(selector.select(wait_s(parser._timeout_time, get_time())))
            selector.unregister(self.fileno)
            process(selector.select(IDLE_WAIT_S), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
