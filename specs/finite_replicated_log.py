"""FiniteReplicatedLog: one bounded log per replica.

A log is ``LogSize`` slots of (id, epoch) records and an end offset. Slots at
or past the end hold Nil (-1 in both halves), which keeps the encoding
canonical: two logs with the same records are the same slots.

The functions take the state view ``s`` (and the next-state builder ``n`` for
the operators that change a log), named after the TLA+ operators they carry
over.
"""

from __future__ import annotations

from typing import NamedTuple

from modelcheck.language.expr import Expr, and_, ite, not_

NIL = -1


class LogRecord(NamedTuple):
    """A record [id |-> ..., epoch |-> ...] as two expressions."""

    id: Expr
    epoch: Expr

    def equals(self, other: "LogRecord") -> Expr:
        return and_(self.id == other.id, self.epoch == other.epoch)


def offsets(s) -> range:
    """Offsets == 0 .. LogSize - 1."""
    return range(s.c.LogSize)


def min_offset_where(s, condition, otherwise):
    """Min({o \\in Offsets : condition(o)}), or ``otherwise`` for the empty set."""
    result = otherwise
    for o in reversed(offsets(s)):  # the smallest offset that qualifies is applied last
        result = ite(condition(o), o, result)
    return result


def max_offset_where(s, condition, otherwise):
    """Max({o \\in Offsets : condition(o)}), or ``otherwise`` for the empty set."""
    result = otherwise
    for o in offsets(s):  # the largest offset that qualifies is applied last
        result = ite(condition(o), o, result)
    return result


def get_end_offset(s, replica) -> Expr:
    return s.log_end[replica]


def is_empty(s, replica) -> Expr:
    return s.log_end[replica] == 0


def is_full(s, replica) -> Expr:
    return s.log_end[replica] == s.c.LogSize


def has_offset(s, replica, offset) -> Expr:
    return offset < s.log_end[replica]


def get_record_at_offset(s, replica, offset) -> LogRecord:
    """The record in slot ``offset`` (which may be an expression)."""
    return LogRecord(s.log_id[replica][offset], s.log_epoch[replica][offset])


def is_log_record(s, record: LogRecord) -> Expr:
    """record \\in LogRecords: an id from the record sequence and an epoch
    from the leader-epoch sequence."""
    return and_(0 <= record.id, record.id <= s.c.MaxRecords - 1,
                0 <= record.epoch, record.epoch <= s.c.MaxLeaderEpoch)


def has_entry(s, replica, record: LogRecord, offset) -> Expr:
    return and_(has_offset(s, replica, offset), get_record_at_offset(s, replica, offset).equals(record))


def has_some_entry(s, replica, offset) -> Expr:
    """\\E record \\in LogRecords : HasEntry(replica, record, offset)."""
    return and_(has_offset(s, replica, offset), is_log_record(s, get_record_at_offset(s, replica, offset)))


def get_latest_record(s, replica) -> LogRecord:
    """The last record of a non-empty log (callers check IsEmpty first)."""
    return get_record_at_offset(s, replica, s.log_end[replica] - 1)


def append(s, n, replica, record: LogRecord, offset) -> None:
    """Append(replica, record, offset): only at the end offset of a log that
    is not full."""
    n.require(not_(is_full(s, replica)), offset == s.log_end[replica])
    n.log_id[replica][offset] = record.id
    n.log_epoch[replica][offset] = record.epoch
    n.log_end[replica] = s.log_end[replica] + 1


def truncate_to(s, n, replica, new_end_offset) -> None:
    """TruncateTo: shortens a log (never lengthens it) and clears the slots it
    drops, so the truncated log has one encoding."""
    n.require(new_end_offset <= s.log_end[replica])
    for o in offsets(s):
        keep = o < new_end_offset
        n.log_id[replica][o] = ite(keep, s.log_id[replica][o], NIL)
        n.log_epoch[replica][o] = ite(keep, s.log_epoch[replica][o], NIL)
    n.log_end[replica] = new_end_offset


def replicate_to(s, n, from_replica, to_replica) -> None:
    """ReplicateTo: the follower appends the leader's record at exactly the
    follower's end offset (the only offset Append accepts)."""
    offset = s.log_end[to_replica]
    record = get_record_at_offset(s, from_replica, offset)
    n.require(has_offset(s, from_replica, offset), is_log_record(s, record))
    append(s, n, to_replica, record, offset)


def log_type_ok(s, replica) -> Expr:
    """ReplicaLogTypeOk: written slots hold records, unwritten ones Nil."""
    end = s.log_end[replica]
    parts = [0 <= end, end <= s.c.LogSize]
    for o in offsets(s):
        record = get_record_at_offset(s, replica, o)
        nil = and_(record.id == NIL, record.epoch == NIL)
        parts.append(ite(o < end, is_log_record(s, record), nil))
    return and_(*parts)
