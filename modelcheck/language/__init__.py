"""The spec language: what a spec is written in.

Expressions over a fixed-shape state (``expr``) and their plainest reading
(``interpreter``, the reference every backend is held to); fields and state
views (``schema``); constants and their kinds (``constants``); TLA+ values
(``values``) and how slots encode them (``codec``); records, bounded sets and
keyed sets of records (``records``, ``bounded``, ``keyed``); temporal forms
(``temporal``); renamings for symmetry (``renaming``); how a state packs
into words and is fingerprinted (``packing``, ``fingerprint``).

May import: ``modelcheck.errors``.
Must not import: backends, the model, specs, engines or anything above.
"""
