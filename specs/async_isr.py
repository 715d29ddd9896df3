"""AsyncIsr: a small model of ISR changes made asynchronously through the controller.

The leader proposes ISR changes by request and keeps a *pending* ISR until
the controller's update comes back; meanwhile it computes the high watermark
over the union of the current and pending ISR. ValidHighWatermark says every
replica in the controller's ISR has reached that high watermark.

Bounding. Upstream, the leader may write forever and ISR versions grow without
limit, so the state space is infinite (its MaxOffset constant is declared but
never used). modelcheck bounds it with two constants:

* ``MaxOffset``: the leader writes only while its offset is below MaxOffset;
* ``MaxVersion``: the controller writes an ISR only while the new version is
  at most MaxVersion.

Offsets and versions only grow, so guarding the two actions that raise them
explores exactly the states TLC would keep under the state constraint
``leaderState.offsets[Leader] <= MaxOffset /\\ controllerState.version <= MaxVersion``
(every other offset trails the leader's, every other version is copied from
the controller's).
"""

from __future__ import annotations

from modelcheck.language.codec import Codec, Fn, IntSlot, Rec, ReplicaSetSlot, StateCodec, json_int, json_record, json_set
from modelcheck.language.constants import INT, REPLICA as REPLICA_KIND, REPLICAS, ConstantDecl
from modelcheck.errors import TraceFormatError
from modelcheck.language.expr import all_of, and_, bit_or, ite, member, min_, not_, set_with, set_without
from modelcheck.language.schema import integer, subset
from modelcheck.model.spec import UPSTREAM, Domain, SpecDefinition, action, invariant, sometimes
from modelcheck.language.values import Record

NIL = -1

CONSTANTS = (
    ConstantDecl("Replicas", REPLICAS, ("r1", "r2", "r3"), minimum=1, maximum=4,
                 doc="the replicas: a count (3) or names ({a,b,c})"),
    ConstantDecl("Leader", REPLICA_KIND, "r1", doc="the replica that leads throughout"),
    ConstantDecl("MaxOffset", INT, 2, minimum=1, maximum=32,
                 doc="bound: the leader's log end offset never passes it"),
    ConstantDecl("MaxVersion", INT, 3, minimum=0, maximum=32,
                 doc="bound: the controller's ISR version never passes it"),
)


def _replica_count(c) -> int:
    return len(c.Replicas)


def _leader(c) -> int:
    return c.Replicas.index(c.Leader)


REPLICA = Domain("Replicas", lambda c: range(_replica_count(c)), lambda c, i: c.Replicas[i])
FOLLOWER = Domain("Replicas", lambda c: [r for r in range(_replica_count(c)) if r != _leader(c)],
                  lambda c, i: c.Replicas[i])
VERSION = Domain("versions", lambda c: range(c.MaxVersion + 1))
ISR = Domain("isr", lambda c: range(1 << _replica_count(c)),
             lambda c, mask: "{" + ", ".join(n for i, n in enumerate(c.Replicas) if mask >> i & 1) + "}")


def fields(c):
    r, v = _replica_count(c), c.MaxVersion
    return [
        subset("controller_isr", r),
        integer("controller_version", 0, v),
        subset("leader_isr", r),
        integer("leader_version", 0, v),
        subset("pending_isr", r),
        integer("pending_version", NIL, v),
        integer("offsets", 0, c.MaxOffset, (r,)),
        # a message set holds [isr, version] pairs: per version, a bitmask
        # over the 2^R possible ISRs
        subset("requests", 1 << r, (v + 1,)),
        subset("updates", 1 << r, (v + 1,)),
    ]


class MessageSet(Codec):
    """A set of [isr |-> ..., version |-> ...] messages held as one bitmask of
    possible ISRs per version."""

    def __init__(self, slots: list[int], names):
        self.version_slots, self.names = slots, tuple(names)

    def encode(self, state):
        out = []
        for version, slot in enumerate(self.version_slots):
            mask = state[slot]
            for isr in range(1 << len(self.names)):
                if mask >> isr & 1:
                    members = frozenset(n for i, n in enumerate(self.names) if isr >> i & 1)
                    out.append(Record((("isr", members), ("version", version))))
        return frozenset(out)

    def decode(self, value, out, path):
        for slot in self.version_slots:
            out[slot] = 0
        for element in json_set(value, path):
            rec = json_record(element, ["isr", "version"], path)
            version = json_int(rec["version"], f"{path}.version")
            if not 0 <= version < len(self.version_slots):
                raise TraceFormatError(f"{path}: version {version} is outside 0..{len(self.version_slots) - 1}")
            isr = 0
            for name in json_set(rec["isr"], f"{path}.isr"):
                if name not in self.names:
                    raise TraceFormatError(f"{path}.isr: {name!r} is not one of {', '.join(self.names)}")
                isr |= 1 << self.names.index(name)
            out[self.version_slots[version]] |= 1 << isr

    def slots(self):
        return list(self.version_slots)

    def coverage(self, highest) -> tuple[str, str, list[str]]:
        """For ``--coverage``: the versions of the messages the set ever held."""
        ever = [v for v, slot in enumerate(self.version_slots) if highest[slot] > 0]
        never = [str(v) for v in range(len(self.version_slots)) if v not in ever]
        return (f"messages of version 0..{len(self.version_slots) - 1}",
                "versions " + ", ".join(map(str, ever)) if ever else "always empty",
                [f"never one of version {', '.join(never)}"] if never and ever else [])


def variables(c, schema) -> StateCodec:
    names = c.Replicas
    slot, f = schema.slot, schema.by_name

    def int_of(name, *idx):
        return IntSlot(slot(name, *idx), f[name].lo, f[name].hi)

    versions = range(c.MaxVersion + 1)
    return StateCodec(schema, {
        "controllerState": Rec(isr=ReplicaSetSlot(slot("controller_isr"), names), version=int_of("controller_version")),
        "leaderState": Rec(isr=ReplicaSetSlot(slot("leader_isr"), names), version=int_of("leader_version"),
                           pendingIsr=ReplicaSetSlot(slot("pending_isr"), names),
                           pendingVersion=int_of("pending_version"),
                           offsets=Fn(names, [int_of("offsets", r) for r in range(len(names))])),
        "requests": MessageSet([slot("requests", v) for v in versions], names),
        "updates": MessageSet([slot("updates", v) for v in versions], names),
    })


def Init(s, n) -> None:
    everyone = (1 << _replica_count(s.c)) - 1
    n.controller_isr = everyone
    n.controller_version = 0
    n.leader_isr = everyone
    n.leader_version = 0
    n.pending_isr = 0
    n.pending_version = NIL
    for r in range(_replica_count(s.c)):
        n.offsets[r] = 0
    for v in range(s.c.MaxVersion + 1):
        n.requests[v] = 0
        n.updates[v] = 0


def high_watermark(s):
    """HighWatermark: the smallest offset over the current and pending ISR.
    (That union always holds the leader, so the minimum exists.)"""
    potential = bit_or(s.leader_isr, s.pending_isr)
    lowest = s.c.MaxOffset
    for r in range(_replica_count(s.c)):
        lowest = ite(member(potential, r), min_(lowest, s.offsets[r]), lowest)
    return lowest


def controller_write_isr(s, n, isr) -> None:
    """ControllerWriteIsr at the next version, with the update it publishes.
    The MaxVersion bound lives here (see the module docstring)."""
    version = s.controller_version + 1
    n.require(version <= s.c.MaxVersion)
    n.controller_isr = isr
    n.controller_version = version
    n.updates[version] = set_with(s.updates[version], isr, 1 << _replica_count(s.c))


def leader_request_isr(s, n, isr) -> None:
    """Send an ISR change at the leader's version and add it to the pending ISR."""
    version = s.leader_version
    n.requests[version] = set_with(s.requests[version], isr, 1 << _replica_count(s.c))
    n.pending_isr = bit_or(s.pending_isr, isr)
    n.pending_version = version


@action(replica=FOLLOWER)
def ControllerShrinkIsr(s, n, replica):
    """The controller removes a follower from its ISR on its own."""
    n.require(member(s.controller_isr, replica))
    controller_write_isr(s, n, set_without(s.controller_isr, replica, _replica_count(s.c)))


@action(version=VERSION, isr=ISR)
def ControllerHandleRequest(s, n, version, isr):
    """The controller applies a request made at its current version."""
    n.require(member(s.requests[version], isr), s.controller_version == version)
    controller_write_isr(s, n, isr)


@action(replica=FOLLOWER)
def LeaderRequestShrinkIsr(s, n, replica):
    """The leader asks to drop a follower from its ISR."""
    n.require(member(s.leader_isr, replica))
    leader_request_isr(s, n, set_without(s.leader_isr, replica, _replica_count(s.c)))


@action(replica=REPLICA)
def LeaderRequestExpandIsr(s, n, replica):
    """The leader asks to add a replica that has reached the high watermark."""
    n.require(not_(member(s.leader_isr, replica)), s.offsets[replica] >= high_watermark(s))
    leader_request_isr(s, n, set_with(s.leader_isr, replica))


@action()
def LeaderWrite(s, n):
    """The leader appends a record; bounded by MaxOffset."""
    leader = _leader(s.c)
    n.require(s.offsets[leader] < s.c.MaxOffset)
    n.offsets[leader] = s.offsets[leader] + 1


@action(version=VERSION, isr=ISR)
def LeaderHandleUpdate(s, n, version, isr):
    """The leader adopts a newer ISR from the controller and forgets what was pending."""
    n.require(member(s.updates[version], isr), version > s.leader_version)
    n.leader_isr = isr
    n.leader_version = version
    n.pending_isr = 0
    n.pending_version = NIL


@action(replica=FOLLOWER)
def FollowerReplicate(s, n, replica):
    """A follower fetches one more record from the leader."""
    leader = _leader(s.c)
    n.require(s.offsets[replica] < s.offsets[leader])
    n.offsets[replica] = s.offsets[replica] + 1


@invariant
def TypeOk(s):
    """Sets within the replicas, versions and offsets within their (bounded) ranges."""
    c = s.c
    everyone = (1 << _replica_count(c)) - 1
    in_sets = all_of(and_(0 <= x, x <= everyone) for x in (s.controller_isr, s.leader_isr, s.pending_isr))
    versions = and_(0 <= s.controller_version, s.controller_version <= c.MaxVersion,
                    0 <= s.leader_version, s.leader_version <= c.MaxVersion,
                    NIL <= s.pending_version, s.pending_version <= c.MaxVersion)
    offsets = all_of(and_(0 <= s.offsets[r], s.offsets[r] <= c.MaxOffset) for r in range(_replica_count(c)))
    return and_(in_sets, versions, offsets)


def lags_high_watermark(s, replica):
    """What breaks ValidHighWatermark: a replica in the controller's ISR that
    has not reached the leader's high watermark."""
    return and_(member(s.controller_isr, replica), s.offsets[replica] < high_watermark(s))


def explain_valid_high_watermark(probe) -> str | None:
    """Names the lagging ISR members and where the high watermark comes from."""
    s = probe.s
    lagging = [w["replica"] for w in probe.where(lags_high_watermark, replica=range(_replica_count(s.c)))]
    if not lagging:
        return None
    hw = probe.value(high_watermark(s))
    behind = ", ".join(f"{probe.replica(r)} has only reached offset {probe.value(s.offsets[r])}" for r in lagging)
    return (f"the leader's high watermark is {hw}, the lowest offset over its ISR "
            f"{probe.replica_set(probe.value(s.leader_isr))} and pending ISR "
            f"{probe.replica_set(probe.value(s.pending_isr))}, but in the controller's ISR "
            f"{probe.replica_set(probe.value(s.controller_isr))} (version {probe.value(s.controller_version)}) "
            f"{behind}")


@invariant(explain=explain_valid_high_watermark)
def ValidHighWatermark(s):
    """Every replica in the controller's ISR has reached the leader's high watermark."""
    return all_of(not_(lags_high_watermark(s, r)) for r in range(_replica_count(s.c)))


@sometimes
def IsrShrunk(s):
    """The controller's ISR lost a member."""
    return s.controller_isr != (1 << _replica_count(s.c)) - 1


@sometimes
def LeaderAdoptedUpdate(s):
    """The leader applied an ISR update from the controller."""
    return s.leader_version > 0


@sometimes
def HighWatermarkAdvanced(s):
    """The high watermark moved past zero."""
    return high_watermark(s) > 0


def viewer_layout():
    """How the trace viewers draw this spec's states (specs/async_isr_layout.py),
    loaded only when a trace is shown."""
    from modelcheck.specs.async_isr_layout import layout
    return (layout(high_watermark),)


SPEC = SpecDefinition(
    name="async-isr", module="AsyncIsr",
    summary="asynchronous ISR updates through the controller (bounded by MaxOffset and MaxVersion)",
    constants=CONSTANTS, fields=fields, init=Init,
    next=(ControllerShrinkIsr, ControllerHandleRequest, LeaderRequestShrinkIsr, LeaderRequestExpandIsr,
          LeaderWrite, LeaderHandleUpdate, FollowerReplicate),
    invariants=(TypeOk, ValidHighWatermark), default_invariants=("ValidHighWatermark",),
    variables=variables, sometimes=(IsrShrunk, LeaderAdoptedUpdate, HighWatermarkAdvanced),
    layout=viewer_layout, origin=UPSTREAM, small_models=({"MaxVersion": "2", "MaxOffset": "1"},),
    notes="MaxOffset and MaxVersion bound the otherwise unbounded offsets and versions; "
          "see the module docstring of specs/async_isr.py")
