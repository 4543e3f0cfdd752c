"""Verification on a Dask distributed cluster (`--cluster ADDRESS`, `--workers N`).

The driver (the `sembench` process) stays the only writer of the log database: it looks each
verification up in the tool cache before sending it, sends the rest to the cluster in chunks, and
records results (verdicts and the tool results the workers computed) as they come back. Workers run the
tools; before any task is sent, every worker reports its Sembench code fingerprint and tool versions,
and workers that differ from the driver's are refused by name (other code would give other verdicts
under the driver's name and cache key).

Modules: remote (what runs on a worker), session (the driver's connection: admission, chunks, faults),
verifier (the run's asynchronous verification stage on a cluster), worker (`sembench worker`).
Dask is imported only here, on first use: no other command pays for it.
"""
