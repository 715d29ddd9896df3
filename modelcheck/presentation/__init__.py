"""Traces read back, replayed and drawn: reading ITF and TLC traces
(``trace_read``), replaying them step by step (``replay``) and a lasso
against a property (``lasso_replay``), the terminal and HTML viewers
(``viewer/``) and writing a trace without overwriting anything
(``outputs``).

May import: capabilities (a lasso's report), loading, the model, the
language, the runtime.
Must not import: runs or commands.
"""
