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
tab keys, landing on a key about one press in ten. Two things keep that scan short: the instance screen
(kept for the next Enter, some ninety widgets) is frozen once it is up, and `collect_when_idle` (the
workbench's timer) runs, once no key came for IDLE_S, the full collection that is due over everything
(the frozen part included: what died since is freed) and freezes what is left alive. pbebench tabs went
from 48-63 to 30-41 ms median, p90 60-127 to 36-70 (side by side, one run).
The collector is not held back while keys come: deferring full collections until a pause (tried, up to
100 and up to 20 collections of the middle generation) left the garbage of every key alive, and every key
got slower while it piled up (pbebench tabs 50-69 ms median against 32-45 collecting as usual, side by
side in one run of tests/bench/bench_tui_keys.py).
"""

from __future__ import annotations

import gc

IDLE_S = 1.0
CHECK_EVERY_S = 0.5


def settle() -> None:
    """Leave everything alive now out of future collections (see the module's docstring)."""
    gc.freeze()


def collect_when_idle(seconds_since_input: float) -> bool:
    """A full collection if one is due (the middle generation was collected since the last one) and no
    key came for IDLE_S; whether it ran."""
    if gc.get_count()[2] and seconds_since_input >= IDLE_S:
        # everything, the frozen part included (what died since the last pause is freed), then what is
        # alive now is frozen: the collections while keys come scan only what is made from here on
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return True
    return False
