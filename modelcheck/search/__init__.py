"""What the engines are built from: successors of a whole chunk of packed
states (``expansion``), orbit representatives for symmetry (``canonical``,
with its C routine ``canonical_c``), the fast engine's checkpoints
(``checkpoint``, ``checkpoint_files``) and batched random walks
(``simulate/``).

May import: the backends, the model, the language, the runtime.
Must not import: specs, loading, engines, capabilities or anything above.
"""
