"""What every command and long search shares, whatever the spec: the limits
and the stop request Ctrl-C sets (``limits``), the progress line
(``progress``), reading input files with a size cap (``reading``), writing a
file whole or not at all (``atomic``), checking where an output may go
(``destinations``), the lock a checkpoint directory is held with
(``dirlock``), the private directories code is loaded from (``private``),
how long the process has run (``clock``) and how to install an extra
(``extras``).

May import: ``modelcheck.errors`` and ``modelcheck.exitcodes`` only.
Must not import: anything else of modelcheck; it knows nothing of specs.
"""
