"""network: message passing over a set of messages.

Upstream keeps every message in flight in one set, ``messages``: sending
adds to it (a message already there is not duplicated: it is a set), and a
broker or the controller that handles a message moves it to
``messages_discard``. The port holds ``messages`` as one bounded set per
message type (``net_<type>``, in TLC's order of the records), and a handled
message is taken by its slot number, which is an action parameter.

``messages_discard`` is outside the VIEW, and the only thing the spec asks of
it is whether an AlterPartition request was sent before (``PreviouslySent``).
So the port keeps just the discarded AlterPartition requests: two states that
differ only in the other discarded messages behave alike and share a view,
and TLC keeps whichever it found first either way. Traces therefore show
``messages_discard`` holding AlterPartition requests only.
"""

from __future__ import annotations

from modelcheck.language.expr import or_

KEPT_DISCARDS = ("alter_request",)


def messages(x, kind: str):
    """The set of in-flight messages of one type (``x`` is the state view or the next-state builder)."""
    return getattr(x, "net_" + kind)


def send(n, kind: str, record) -> None:
    """Send(m)."""
    messages(n, kind).add(record)


def discard(s, n, kind: str, slot: int) -> None:
    """Discard(m) for the message the action took from ``slot``."""
    if kind in KEPT_DISCARDS:
        getattr(n, "discarded_" + kind).add(messages(s, kind).at(slot))
    messages(n, kind).remove_at(slot)


def reply(s, n, kind: str, slot: int, reply_kind: str, record) -> None:
    """Reply(d, m): discard the message taken from ``slot``, send ``record``."""
    discard(s, n, kind, slot)
    send(n, reply_kind, record)


def drop(n, kind: str, predicate) -> None:
    """Drop({m \\in messages : predicate(m)}) for the messages of one type."""
    messages(n, kind).remove_where(predicate)


def previously_sent(s, kind: str, record):
    """PreviouslySent(m): in flight or handled already."""
    return or_(messages(s, kind).contains(record), getattr(s, "discarded_" + kind).contains(record))
