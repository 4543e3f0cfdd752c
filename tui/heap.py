"""Long-lived data kept out of the garbage collector's way.

A full collection scans every object of the process with the GIL held. Once a snapshot's table and the
log's attempt summary are loaded, the workbench holds a few hundred thousand objects that live as long as
the view does, and each full collection (triggered by ordinary rendering) took 75-80 ms: a visible freeze.
`gc.freeze()` moves every object alive now out of the collector's generations, so later collections scan
only what was made since. Frozen objects are still freed by reference counting when dropped (the table,
the summary and the instance data hold no cycles); only a cycle among them outlives its use, which is why
this is called after loads, not on a timer.

What is made after that still reaches the oldest generation (Textual's strips, caches and messages: 7,000
to 21,000 objects collected at a time), and a full collection of it took 46-59 ms every few seconds of
tab keys, landing on a key about one press in ten. So full collections wait for a pause in the typing:
`defer_full_collections` stops the collector starting them by itself, and `collect_when_idle` (the
workbench's timer) runs one once no key came for IDLE_S, or at once when MAX_DEFERRED collections of the
middle generation passed without one (a key held down for minutes does not grow the heap without bound).
"""

from __future__ import annotations

import gc

IDLE_S = 1.0
MAX_DEFERRED = 100  # collections of the middle generation (each after ~10 of the youngest)
CHECK_EVERY_S = 0.5


def settle() -> None:
    """Leave everything alive now out of future collections (see the module's docstring)."""
    gc.freeze()


def defer_full_collections() -> None:
    """The collector keeps collecting the young generations; full collections are left to
    `collect_when_idle` (a threshold that never triggers)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1 << 30)


def collect_when_idle(seconds_since_input: float) -> bool:
    """A full collection if one is due (the middle generation was collected since the last one) and no
    key came for IDLE_S, or if MAX_DEFERRED are pending; whether it ran."""
    pending = gc.get_count()[2]
    if pending and (seconds_since_input >= IDLE_S or pending >= MAX_DEFERRED):
        gc.collect()
        return True
    return False
