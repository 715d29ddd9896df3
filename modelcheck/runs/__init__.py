"""A prepared request run through its engine to a verdict: ``run`` checks
everything before any state is explored and executes the engine once;
``liveness`` decides the temporal properties on the graph the engine
recorded; ``report`` tells the outcome as text or JSON.

May import: presentation, capabilities, engines, loading and everything below.
Must not import: commands.
"""
