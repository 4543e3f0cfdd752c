"""Long-lived data kept out of the garbage collector's way.

A full collection scans every object of the process with the GIL held. Once a snapshot's table and the
log's attempt summary are loaded, the workbench holds a few hundred thousand objects that live as long as
the view does, and each full collection (triggered by ordinary rendering) took 75-80 ms: a visible freeze.
`gc.freeze()` moves every object alive now out of the collector's generations, so later collections scan
only what was made since. Frozen objects are still freed by reference counting when dropped (the table,
the summary and the instance data hold no cycles); only a cycle among them outlives its use, which is why
this is called after loads, not on a timer.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Leave everything alive now out of future collections (see the module's docstring)."""
    gc.freeze()
