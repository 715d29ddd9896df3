"""kafka_replication_kip_966: Kafka's replication with KIP-966's Eligible
Leader Replicas, carried over from the upstream TLA+ module of that name.

It is v3.5's protocol with these changes, each carried by the shared
operators where upstream changes them (they read ``types(c).elr``):

* the ISR may shrink to nothing; replicas leaving an ISR smaller than MinISR
  join the ELR, from which the controller elects a leader when the ISR is empty;
* a broker writes its broker epoch to file on a clean shutdown and sends it
  when it registers; one that sends none may have lost data and leaves the ISR
  and the ELR (ProcessUncleanBroker);
* a leader advances the high watermark only while its ISR has MinISR members.

The actions are v3.5's (one definition each), but for the two shutdowns, which
KIP-966 names after whether the broker's log survives.
"""

from __future__ import annotations

from modelcheck.language.expr import not_
from modelcheck.model.spec import Domain, action
from modelcheck.specs.kraft import viewer_layout_kip966
from modelcheck.specs.kraft import kafka_replication_v3_5 as v35
from modelcheck.specs.kraft.kafka_replication_v3_5 import BROKER, CANDIDATE, offline, shut_down, under_limit
from modelcheck.specs.kraft.kip_966_properties import CFG_INVARIANTS, INVARIANTS
from modelcheck.specs.kraft.kip_966_types import CONSTANTS
from modelcheck.specs.kraft.v3_5_types import NIL, OFFLINE_CLEAN, OFFLINE_DIRTY

CLEAN = Domain("is_clean_shutdown", lambda c: (0, 1), lambda c, v: bool(v))  # BOOLEAN: FALSE first, as TLC


@action(b=BROKER, candidate=CANDIDATE)
def DataLossShutdown(s, n, b, candidate):
    """A broker stops and loses its whole log and its broker epoch on file;
    the controller fences it."""
    n.require(under_limit(s.aux_ctrs.data_loss_shutdown_ctr, s.c.DataLossShutdownLimit), not_(offline(s, b)))
    shut_down(s, n, b, OFFLINE_DIRTY, candidate)
    n.partition_log[b].clear()
    n.partition_data[b].update(hwm=1, leo=1)
    n.partition_leso[b] = NIL
    n.aux_ctrs.update(data_loss_shutdown_ctr=s.aux_ctrs.data_loss_shutdown_ctr + 1)


@action(b=BROKER, is_clean_shutdown=CLEAN, candidate=CANDIDATE)
def NoDataLossShutdown(s, n, b, is_clean_shutdown, candidate):
    """A broker stops with its log intact: cleanly (it writes its broker
    epoch to file) or not (the file is lost); the controller fences it."""
    n.require(under_limit(s.aux_ctrs.no_data_loss_shutdown_ctr, s.c.NoDataLossShutdownLimit), not_(offline(s, b)))
    shut_down(s, n, b, OFFLINE_CLEAN, candidate,
              epoch_on_file=s.broker_state[b].broker_epoch if is_clean_shutdown else 0)
    n.aux_ctrs.update(no_data_loss_shutdown_ctr=s.aux_ctrs.no_data_loss_shutdown_ctr + 1)


BROKER_ACTIONS = tuple({v35.UncleanShutdown: DataLossShutdown, v35.CleanShutdown: NoDataLossShutdown}.get(a, a)
                       for a in v35.BROKER_ACTIONS)
SPEC = v35.kraft_spec("kraft-kip966", "kafka_replication_kip_966",
                      "KIP-966 Eligible Leader Replicas on Kafka's KRaft replication", CONSTANTS, BROKER_ACTIONS,
                      INVARIANTS, CFG_INVARIANTS, viewer_layout_kip966, "kip-966")
