"""Crafted states for guard tests: a partition with an elected leader."""

from support import crafted

ALL = {"r1", "r2", "r3"}


def led_by(m, elected="r1", epoch=0, isr=ALL, followers=(), **fields):
    """The controller elected ``elected`` at ``epoch`` (requests 0..epoch sent,
    all naming it), it took leadership, and ``followers`` follow it on that epoch."""
    names = list(m.constants.Replicas)
    leader = elected
    base = dict(
        next_leader_epoch=epoch + 1,
        request_sent={e: 1 for e in range(epoch + 1)},
        request_leader={e: leader for e in range(epoch + 1)},
        request_isr={e: isr for e in range(epoch + 1)},
        quorum_epoch=epoch, quorum_leader=leader, quorum_isr=isr,
        leader={leader: leader, **{f: leader for f in followers}},
        leader_epoch={leader: epoch, **{f: epoch for f in followers}},
        isr={leader: isr, **{f: isr for f in followers}},
    )
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value
    assert set(names) >= {leader, *followers}
    return crafted(m, **base)


def with_log(m, state, replica, records, **extra):
    """Give ``replica`` the log ``records`` [(id, epoch), ...]."""
    ids = {(replica, o): rid for o, (rid, _) in enumerate(records)}
    epochs = {(replica, o): ep for o, (_, ep) in enumerate(records)}
    return crafted(m, base=state, log_end={replica: len(records)}, log_id=ids, log_epoch=epochs, **extra)
