"""Temporal properties, one capability in one folder: the state graph an
engine records (``record``, ``batched``, ``graph``, ``build``, ``store``,
``order``), the cycle search with fairness (``search``), lassos and what
they violate (``lasso``), the decision per property (``check``, and
``symmetric`` under symmetry) and how a violation is told (``report``).

May import: the engines' contract, search machinery, the model, the
language, the backends, the runtime.
Must not import: presentation, runs or commands (``modelcheck.runs.liveness``
and ``modelcheck.presentation.lasso_replay`` build on it from above).
"""
