"""The spec language: what a spec is written in.

Expressions over a fixed-shape state (``expr``) and their plainest reading
(``interpreter``, the reference every backend is held to); fields and state
views (``schema``); constants and their kinds (``constants``), written in
TLA+ notation (``notation``); TLA+ values (``values``) and how slots encode
them (``codec``, derived from the fields where they say what they hold); records, bounded sets and
keyed sets of records (``records``, ``bounded``, ``keyed``); temporal forms
(``temporal``); renamings for symmetry (``renaming``); how a state packs
into words and is fingerprinted (``packing``, ``fingerprint``).

May import: ``modelcheck.errors``.
Must not import: backends, the model, specs, engines or anything above.
"""
