"""kip_966_types: v3.5's types with KIP-966's changes.

The controller's partition state and the metadata records carry the
Eligible Leader Replicas (``elr``) and the last known ELR; a registration
request carries the broker epoch the broker kept on file; the shutdown limits
are named after whether the shutdown loses data; AvoidLastReplicaStanding is
gone (KIP-966 is the fix). The record types themselves are built by
``v3_5_types.types``, which reads these constants (``is_kip966``) and orders
records as TLC does under this module's text.
"""

from __future__ import annotations

from modelcheck.language.constants import INT, ConstantDecl
from modelcheck.specs.kraft.v3_5_types import CONSTANTS as V35_CONSTANTS

_RENAMED = {
    "CleanShutdownLimit": ConstantDecl("NoDataLossShutdownLimit", INT, 0, minimum=0, maximum=3,
                                       doc="at most this many shutdowns that keep the log (and, cleanly, the "
                                           "broker epoch on file)"),
    "UncleanShutdownLimit": ConstantDecl("DataLossShutdownLimit", INT, 1, minimum=0, maximum=3,
                                         doc="at most this many shutdowns that lose the log"),
}

CONSTANTS = tuple(_RENAMED.get(d.name, d) for d in V35_CONSTANTS if d.name != "AvoidLastReplicaStanding")
