"""v3_5_types: the constants, the shapes of states and messages, and the
bounds that keep every field finite.

Brokers are the integers 1..BrokerCount upstream; the port numbers broker b
as b - 1 inside the state (parameters, messages, sets as bitmasks) and shows
it as b in traces. Named values upstream declares as model
values (statuses, roles, errors, Nil, NoLeader) are small codes here. Where
they sit inside a message, the codes follow the order TLC gives those model
values (the order the module's .cfg declares them in), because that order
decides which message TLC tries first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from modelcheck.language.constants import BOOL, INT, REPLICAS, ConstantDecl
from modelcheck.errors import InputError, TraceFormatError
from modelcheck.language.expr import and_, eq, ite, not_
from modelcheck.language.records import RecordType, choice, flag, members, number
from modelcheck.model.spec import Domain
from modelcheck.language.values import Function, Record

# --- named values ------------------------------------------------------------------
# Controller-side broker status, broker-side status, replica role.
FENCED, UNFENCED = 0, 1
STARTING, RUNNING, OFFLINE_CLEAN, OFFLINE_DIRTY = 0, 1, 2, 3
BROKER_STATUSES = ("STARTING", "RUNNING", "OFFLINE_CLEAN", "OFFLINE_DIRTY")
NIL_ROLE, LEADER, FOLLOWER = 0, 1, 2
ROLES = ("Nil", "Leader", "Follower")
# Error codes, in TLC's order of these model values (Nil comes last).
INELIGIBLE_REPLICA, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, NO_ERROR = range(5)
ERRORS = ("IneligibleReplica", "FencedLeaderEpoch", "UnknownLeaderEpoch", "NotLeaderOrFollower", "Nil")
NIL = 0  # the code of Nil in an offset that may hold it (leo, leso): offsets start at 1
NO_LEADER = -1  # the code of NoLeader in a leader part
INT_MAX = 10000  # upstream's IntMax (aux_flo when no write is pending acknowledgement)
CONTROLLER = "Controller"

# --- constants ---------------------------------------------------------------------

LIMITS = ("CleanShutdownLimit", "UncleanShutdownLimit", "FenceBrokerLimit", "LeaderShrinkIsrLimit",
          "ReassignmentLimit")

CONSTANTS = (
    ConstantDecl("BrokerCount", INT, 3, minimum=1, maximum=4, doc="the brokers 1..BrokerCount"),
    ConstantDecl("InitReplicationFactor", INT, 3, minimum=1, maximum=4,
                 doc="the initial replica set's size (replicas 1..RF; reassignments may change it)"),
    ConstantDecl("Values", REPLICAS, ("A",), minimum=1, maximum=3,
                 doc="the values producers may write, each at most once: a count (2) or names ({A,B})"),
    ConstantDecl("MinISR", INT, 2, minimum=1, maximum=4, doc="min.insync.replicas"),
    ConstantDecl("InitIsrSize", INT, 2, minimum=1, maximum=4,
                 doc="the initial ISR's size; the other initial replicas start out of sync and fenced"),
    ConstantDecl("CleanShutdownLimit", INT, 0, minimum=0, maximum=3, doc="at most this many clean shutdowns"),
    ConstantDecl("UncleanShutdownLimit", INT, 1, minimum=0, maximum=3, doc="at most this many unclean shutdowns"),
    ConstantDecl("FenceBrokerLimit", INT, 1, minimum=0, maximum=3,
                 doc="at most this many times the controller fences a broker on its own"),
    ConstantDecl("LeaderShrinkIsrLimit", INT, 0, minimum=0, maximum=3,
                 doc="at most this many AlterPartition requests that shrink the ISR"),
    ConstantDecl("ReassignmentLimit", INT, 0, minimum=0, maximum=2, doc="at most this many reassignments"),
    ConstantDecl("AvoidLastReplicaStanding", BOOL, True,
                 doc="do not shut down uncleanly the last member of the ISR (hides the Last Replica "
                     "Standing data loss)"),
)

# Not upstream's: how many AlterPartition messages of each kind the port's
# network holds (see ``bounds``). It changes no behaviour, only what a run
# can hold; a run that needs more stops and says so.
CAPACITIES = (
    ConstantDecl("AlterPartitionCapacity", INT, 0, minimum=0, maximum=32,
                 doc="room for AlterPartition requests in flight, responses, and requests handled (each); "
                     "0 derives it from the limits"),
)

# The checks upstream marks `CHECK` (a check whose removal, its author says,
# lets the model checker find data loss): each can be switched off.
SWITCHES = (
    ConstantDecl("RegistrationMatchesIncarnation", BOOL, True,
                 doc="a broker accepts a registration response only for its current incarnation"),
    ConstantDecl("RefetchOnLeaderEpochBump", BOOL, True,
                 doc="a follower re-adds the partition to its fetcher (fetch offset reset to its log end) "
                     "in every new leader epoch, not only when it follows a new leader"),
    ConstantDecl("ResetStaleFollowerState", BOOL, True,
                 doc="a leader re-elected in a new epoch forgets what it knew of followers outside the ISR"),
    ConstantDecl("IsrJoinRequiresFetch", BOOL, True,
                 doc="a follower joins the ISR only once the leader has had a fetch from it in this leader epoch; "
                     "off, one it has not heard from counts as caught up"),
    ConstantDecl("IsrJoinRequiresHighWatermark", BOOL, True,
                 doc="a follower joins the ISR only once it has fetched up to the leader's high watermark"),
    ConstantDecl("IsrJoinRequiresEpochStart", BOOL, True,
                 doc="a follower joins the ISR only once it has fetched up to the offset the leader's epoch "
                     "started at"),
    ConstantDecl("FetchResponseMatchesOffset", BOOL, True,
                 doc="a follower ignores a fetch response for another fetch offset than its fetcher's"),
    ConstantDecl("FetchResponseMatchesEpoch", BOOL, True,
                 doc="a follower ignores a fetch response from another leader epoch than its own"),
    ConstantDecl("IsrJoinChecksBrokerEpoch", BOOL, True,
                 doc="the controller lets a replica join the ISR only with its current broker epoch "
                     "(KIP-903); off, being unfenced is enough"),
    ConstantDecl("AlterPartitionChecksPartitionEpoch", BOOL, True,
                 doc="the controller accepts an AlterPartition request only on the current partition epoch"),
)


def is_kip966(c) -> bool:
    """Whether these constants are KIP-966's (its shutdown limits replace 3.5's)."""
    return "DataLossShutdownLimit" in dict(c.items())


def shutdown_limits(c) -> tuple[int, int]:
    """(clean, unclean) shutdowns: KIP-966 calls them no-data-loss and data-loss shutdowns."""
    if is_kip966(c):
        return c.NoDataLossShutdownLimit, c.DataLossShutdownLimit
    return c.CleanShutdownLimit, c.UncleanShutdownLimit


def check_constants(c) -> None:
    """The module's ASSUMEs, and the sizes the port supports."""
    if c.InitReplicationFactor > c.BrokerCount:
        raise InputError(f"InitReplicationFactor ({c.InitReplicationFactor}) must be at most BrokerCount "
                         f"({c.BrokerCount})")
    if c.InitIsrSize > c.InitReplicationFactor:
        raise InputError(f"InitIsrSize ({c.InitIsrSize}) must be at most InitReplicationFactor "
                         f"({c.InitReplicationFactor})")
    if c.InitIsrSize < c.MinISR:
        raise InputError(f"InitIsrSize ({c.InitIsrSize}) must be at least MinISR ({c.MinISR})")
    if c.MinISR > c.InitReplicationFactor:
        raise InputError(f"MinISR ({c.MinISR}) must be at most InitReplicationFactor ({c.InitReplicationFactor})")
    b = bounds(c)
    if b.metadata_log > MAX_METADATA_LOG:
        raise InputError(f"these limits allow up to {b.metadata_log} metadata records, more than the "
                         f"{MAX_METADATA_LOG} this port can hold; lower the limits")


MAX_METADATA_LOG = 24
MAX_EVALUATION_ERRORS = 8


# --- bounds ----------------------------------------------------------------------

@dataclass(frozen=True)
class Bounds:
    """How large each value can grow with these constants (see ``bounds``)."""

    brokers: int
    values: int
    shutdowns: int
    changes: int  # partition changes the controller can make
    metadata_log: int  # capacity of a metadata log
    leader_epoch: int
    partition_epoch: int
    broker_epoch: int
    incarnation: int
    offset: int  # the largest log end offset / high watermark (offsets are 1-based)
    registrations: int  # register requests (and responses) ever sent
    fetches: int  # fetch requests (or responses) in flight at once
    alter_partitions: int  # AlterPartition requests (or responses) held at once


@lru_cache(maxsize=None)
def _bounds(n: int, values: int, rf: int, init_isr: int, clean: int, unclean: int, fence: int, shrink: int,
            reassign: int, elr: bool = False) -> Bounds:
    shutdowns = clean + unclean
    out_of_sync = rf - init_isr
    # ISR expansions the controller can accept: each adds a replica the ISR
    # lacked. The ISR starts `out_of_sync` short and loses at most one member
    # per fence or shutdown (and, with KIP-966, per registration after a
    # shutdown that lost the epoch on file), at most n-1 per shrinking
    # request, and a reassignment adds at most n replicas to the replica set.
    expansions = out_of_sync + fence + shutdowns * (2 if elr else 1) + shrink * (n - 1) + reassign * n
    # A partition change record per fence or shutdown, per registration or
    # unfencing that elects a leader (registrations follow restarts; brokers
    # fenced while running are the initially out-of-sync ones and those the
    # controller fences), per reassignment, per accepted shrink or expansion.
    changes = fence + shutdowns + shutdowns + (out_of_sync + fence) + reassign + shrink + expansions
    log = 1 + changes
    # AlterPartition messages pile up (a response the leader no longer waits
    # for stays in the network), but only as partition changes make a
    # leader's pending request stale: one more than the number of changes
    # has held in every configuration measured. It is an estimate, not a
    # proof, so every run checks it (WithinCapacity) and names the constant
    # to raise if a behaviour needs more.
    alter = changes + 1
    return Bounds(brokers=n, values=values, shutdowns=shutdowns, changes=changes, metadata_log=log,
                  leader_epoch=log, partition_epoch=log + 1, broker_epoch=n + shutdowns,
                  incarnation=n + shutdowns, offset=values + 1, registrations=max(1, shutdowns),
                  fetches=max(1, n * (n - 1)), alter_partitions=alter)


def bounds(c) -> Bounds:
    """Bounds derived from the limits: every counter and epoch a behaviour
    can reach, and how many messages of each kind can be held at once.

    * Broker epochs and incarnation ids grow by one per restart, and only a
      shutdown lets a broker restart.
    * Leader and partition epochs grow by at most one per partition change,
      and each change appends one metadata record.
    * A fetcher has at most one fetch (request or response) in flight.
    * Registration messages are sent once per restart.
    * AlterPartition messages: see ``_bounds``; this one bound is a generous
      estimate rather than a proof, so the run checks it (``within_capacity``).
    """
    derived = _bounds(c.BrokerCount, len(c.Values), c.InitReplicationFactor, c.InitIsrSize, *shutdown_limits(c),
                      c.FenceBrokerLimit, c.LeaderShrinkIsrLimit, c.ReassignmentLimit, is_kip966(c))
    given = getattr(c, "AlterPartitionCapacity", 0)
    if given:
        from dataclasses import replace
        return replace(derived, alter_partitions=given)
    return derived


# --- domains -------------------------------------------------------------------------

def brokers(c) -> range:
    """Brokers == 1..BrokerCount, as the port numbers them (0..BrokerCount-1)."""
    return range(c.BrokerCount)


BROKER = Domain("broker", brokers, lambda c, v: v + 1)
VALUE = Domain("value", lambda c: range(len(c.Values)), lambda c, v: c.Values[v])


def broker_bit(b: int) -> int:
    return 1 << b


def broker_set(bs) -> int:
    mask = 0
    for b in bs:
        mask |= broker_bit(b)
    return mask


# --- record types ----------------------------------------------------------------------

@dataclass(frozen=True)
class Types:
    """The record types of one instance (their ranges depend on the constants)."""

    partition_record: RecordType
    change_record: RecordType
    register_request: RecordType
    register_response: RecordType
    alter_request: RecordType
    alter_response: RecordType
    fetch_request: RecordType
    fetch_response: RecordType
    broker_side: RecordType
    controller_side: RecordType
    controller_partition: RecordType
    replica_partition: RecordType
    fetcher: RecordType
    peer: RecordType
    pending_alter: RecordType
    partition_data: RecordType
    counters: RecordType
    elr: bool = False  # KIP-966: the controller keeps Eligible Leader Replicas


def _brokers_of(c) -> tuple[int, ...]:
    """The brokers as TLA+ names them (1..BrokerCount)."""
    return tuple(range(1, c.BrokerCount + 1))


def _tla_int(x, path) -> int:
    from modelcheck.language.codec import json_int
    return json_int(x, path)


def _field(x, name, path):
    if not isinstance(x, dict) or name not in x:
        raise TraceFormatError(f"{path}: expected a record with a field {name}, got {x!r}")
    return x[name]


def alter_request_parts(c, b: Bounds, prefix: str = "") -> list:
    """The parts of an AlterPartition request (also embedded, with a prefix,
    where a response or a pending request carries one)."""
    n = c.BrokerCount
    parts = [number(prefix + "source", 0, n - 1, shift=1), number(prefix + "broker_epoch", 0, b.broker_epoch),
             number(prefix + "leader", 0, n - 1, shift=1), number(prefix + "leader_epoch", 0, b.leader_epoch),
             number(prefix + "partition_epoch", 0, b.partition_epoch),
             members(prefix + "isr", _brokers_of(c))]
    parts += [number(f"{prefix}epoch_of_{k}", 0, b.broker_epoch) for k in brokers(c)]
    return parts


def alter_request_order(c, prefix: str = "") -> list:
    """TLC compares an AlterPartition request by source, broker_epoch, leader,
    leader_epoch, partition_epoch, isr, then isr_and_epochs (its dest is always
    the controller); under KIP-966's module, whose text names broker_epoch and
    isr sooner, by broker_epoch, source, isr, leader, leader_epoch,
    partition_epoch, isr_and_epochs."""
    names = ("broker_epoch", "source", "isr", "leader", "leader_epoch", "partition_epoch") if is_kip966(c) else \
        ("source", "broker_epoch", "leader", "leader_epoch", "partition_epoch", "isr")
    return [prefix + p for p in names] + [f"{prefix}epoch_of_{k}" for k in brokers(c)]


def alter_request_tla(c, v, prefix: str = "") -> Record:
    isr = [k for k in brokers(c) if v[prefix + "isr"] >> k & 1]
    return Record((("type", "AlterPartitionRequest"),
                   ("isr", frozenset(k + 1 for k in isr)),
                   ("isr_and_epochs", Function((k + 1, v[f"{prefix}epoch_of_{k}"]) for k in isr)),
                   ("leader", v[prefix + "leader"] + 1), ("leader_epoch", v[prefix + "leader_epoch"]),
                   ("partition_epoch", v[prefix + "partition_epoch"]), ("broker_epoch", v[prefix + "broker_epoch"]),
                   ("source", v[prefix + "source"] + 1), ("dest", CONTROLLER)))


def alter_request_values(c, x, path, prefix: str = "") -> dict[str, int]:
    from modelcheck.language.codec import json_function, json_set
    isr = [_tla_int(k, path) if isinstance(k, dict) else k for k in json_set(_field(x, "isr", path), f"{path}.isr")]
    epochs = json_function(_field(x, "isr_and_epochs", path), sorted(isr), f"{path}.isr_and_epochs")
    v = {prefix + "isr": _mask(isr, _brokers_of(c), f"{path}.isr")}
    for k in brokers(c):
        v[f"{prefix}epoch_of_{k}"] = 0
    for k, e in zip(sorted(isr), epochs):
        v[f"{prefix}epoch_of_{k - 1}"] = _tla_int(e, path)
    for name in ("leader_epoch", "partition_epoch", "broker_epoch"):
        v[prefix + name] = _tla_int(_field(x, name, path), f"{path}.{name}")
    for name in ("leader", "source"):
        v[prefix + name] = _tla_int(_field(x, name, path), f"{path}.{name}") - 1
    return v


@lru_cache(maxsize=None)
def _types(c) -> Types:
    b = bounds(c)
    n, values = c.BrokerCount, tuple(c.Values)
    ids = _brokers_of(c)
    off = b.offset

    partition_record = RecordType("PartitionRecord", [
        number("epoch", 0, b.leader_epoch), number("offset", 1, off), choice("value", values)])

    elr = is_kip966(c)

    def change_tla(v):
        rec = [("type", "PartitionChangeRecord"), ("replicas", _set(v["replicas"], ids)),
               ("isr", _set(v["isr"], ids))]
        if elr:
            rec += [("elr", _set(v["elr"], ids)), ("last_known_elr", _set(v["last_known_elr"], ids))]
        rec += [("leader", _leader(v["leader"])), ("leader_epoch", v["leader_epoch"]),
                ("partition_epoch", v["partition_epoch"])]
        if v["full"]:
            rec += [("adding", _set(v["adding"], ids)), ("removing", _set(v["removing"], ids))]
        return Record(rec)

    def change_values(x, path):
        v = {"replicas": _mask(_field(x, "replicas", path), ids, path), "isr": _mask(_field(x, "isr", path), ids, path),
             "leader": _leader_code(_field(x, "leader", path), path),
             "leader_epoch": _tla_int(_field(x, "leader_epoch", path), path),
             "partition_epoch": _tla_int(_field(x, "partition_epoch", path), path), "full": int("adding" in x)}
        v["adding"] = _mask(x["adding"], ids, path) if "adding" in x else 0
        v["removing"] = _mask(x["removing"], ids, path) if "removing" in x else 0
        if elr:
            v["elr"] = _mask(_field(x, "elr", path), ids, path)
            v["last_known_elr"] = _mask(_field(x, "last_known_elr", path), ids, path)
        return v

    elr_parts = [members("elr", ids), members("last_known_elr", ids)] if elr else []

    # The records PartitionChange appends carry `adding` and `removing`;
    # Init's record does not (`full` tells them apart: such records differ).
    change_record = RecordType("PartitionChangeRecord", [
        members("replicas", ids), members("isr", ids), number("leader", -1, n - 1, nil="NoLeader", shift=1),
        number("leader_epoch", 0, b.leader_epoch), number("partition_epoch", 0, b.partition_epoch),
        members("adding", ids), members("removing", ids), flag("full")] + elr_parts,
        to_tla=change_tla, from_tla=change_values)

    def register_request_tla(v):
        rec = [("type", "RegisterBrokerRequest"), ("broker_id", v["broker_id"] + 1)]
        if elr:  # KIP-966's request carries the broker epoch on file (0: none)
            rec.append(("broker_epoch", v["broker_epoch"]))
        rec += [("incarnation_id", v["incarnation_id"]), ("dest", CONTROLLER), ("source", v["source"] + 1)]
        return Record(rec)

    def register_request_values(x, path):
        v = {"broker_id": _tla_int(_field(x, "broker_id", path), path) - 1,
             "incarnation_id": _tla_int(_field(x, "incarnation_id", path), path),
             "source": _tla_int(_field(x, "source", path), path) - 1, "broker_epoch": 0}
        if elr:
            v["broker_epoch"] = _tla_int(_field(x, "broker_epoch", path), path)
        return v

    register_request = RecordType("RegisterBrokerRequest", [
        number("broker_id", 0, n - 1), number("broker_epoch", 0, b.broker_epoch),
        number("incarnation_id", 1, b.incarnation), number("source", 0, n - 1)],
        order=["broker_id", "broker_epoch", "incarnation_id", "source"],
        to_tla=register_request_tla, from_tla=register_request_values)

    register_response = RecordType("RegisterBrokerResponse", [
        number("broker_epoch", 1, b.broker_epoch), number("incarnation_id", 1, b.incarnation),
        number("metadata_offset", 0, b.metadata_log), number("dest", 0, n - 1)],
        order=(["broker_epoch", "incarnation_id", "dest", "metadata_offset"] if elr
               else ["incarnation_id", "dest", "broker_epoch", "metadata_offset"]),
        to_tla=lambda v: Record((("type", "RegisterBrokerResponse"), ("broker_epoch", v["broker_epoch"]),
                                 ("incarnation_id", v["incarnation_id"]),
                                 ("metadata_offset", v["metadata_offset"]), ("dest", v["dest"] + 1),
                                 ("source", CONTROLLER))),
        from_tla=lambda x, path: {**{k: _tla_int(_field(x, k, path), path)
                                     for k in ("broker_epoch", "incarnation_id", "metadata_offset")},
                                  "dest": _tla_int(_field(x, "dest", path), path) - 1})

    alter_request = RecordType("AlterPartitionRequest", alter_request_parts(c, b),
                               order=alter_request_order(c),
                               to_tla=lambda v: alter_request_tla(c, v),
                               from_tla=lambda x, path: alter_request_values(c, x, path))

    def alter_response_tla(v):
        request = alter_request_tla(c, v, "req_")
        if v["success"]:
            return Record((("type", "AlterPartitionResponse"), ("error", "Nil"),
                           ("replicas", _set(v["replicas"], ids)), ("isr", _set(v["isr"], ids)),
                           ("leader", v["leader"] + 1), ("leader_epoch", v["leader_epoch"]),
                           ("partition_epoch", v["partition_epoch"]), ("request", request),
                           ("dest", v["dest"] + 1), ("source", CONTROLLER)))
        return Record((("type", "AlterPartitionResponse"), ("error", ERRORS[v["error"]]), ("request", request),
                       ("dest", v["dest"] + 1), ("source", CONTROLLER)))

    def alter_response_values(x, path):
        v = alter_request_values(c, _field(x, "request", path), f"{path}.request", "req_")
        v["dest"] = _tla_int(_field(x, "dest", path), path) - 1
        error = _field(x, "error", path)
        if error not in ERRORS:
            raise TraceFormatError(f"{path}.error: {error!r} is not an error code")
        v["error"] = ERRORS.index(error)
        v["success"] = int(error == "Nil")
        if v["success"]:
            v["replicas"] = _mask(_field(x, "replicas", path), ids, path)
            v["isr"] = _mask(_field(x, "isr", path), ids, path)
            for k in ("leader_epoch", "partition_epoch"):
                v[k] = _tla_int(_field(x, k, path), path)
            v["leader"] = _tla_int(_field(x, "leader", path), path) - 1
        return v

    # A successful response has ten fields and a failed one five, so every
    # failed response comes first in TLC's order; the parts only a success
    # has are blank in a failure.
    alter_response = RecordType("AlterPartitionResponse", [
        flag("success"), choice("error", ERRORS, blank=NO_ERROR), number("leader", 0, n - 1),
        number("leader_epoch", 0, b.leader_epoch), number("partition_epoch", 0, b.partition_epoch),
        members("replicas", ids), members("isr", ids)] + alter_request_parts(c, b, "req_") + [number("dest", 0, n - 1)],
        order=(["success", "dest", "isr", "leader", "leader_epoch", "partition_epoch", "replicas"] if elr
               else ["success", "dest", "leader", "leader_epoch", "partition_epoch", "replicas", "isr"])
        + alter_request_order(c, "req_") + ["error"],
        to_tla=alter_response_tla, from_tla=alter_response_values)

    fetch_request = RecordType("FetchRequest", [
        number("broker_epoch", 0, b.broker_epoch), number("leader_epoch", 0, b.leader_epoch),
        number("fetch_offset", 1, off), number("last_fetched_epoch", 0, b.leader_epoch),
        number("dest", 0, n - 1), number("source", 0, n - 1)],
        order=(["broker_epoch", "dest", "source", "leader_epoch", "fetch_offset", "last_fetched_epoch"] if elr
               else ["dest", "source", "broker_epoch", "leader_epoch", "fetch_offset", "last_fetched_epoch"]),
        to_tla=lambda v: Record((("type", "FetchRequest"), ("broker_epoch", v["broker_epoch"]),
                                 ("partition", Record((("leader_epoch", v["leader_epoch"]),
                                                       ("fetch_offset", v["fetch_offset"]),
                                                       ("last_fetched_epoch", v["last_fetched_epoch"])))),
                                 ("dest", v["dest"] + 1), ("source", v["source"] + 1))),
        from_tla=lambda x, path: {
            "broker_epoch": _tla_int(_field(x, "broker_epoch", path), path),
            **{k: _tla_int(_field(_field(x, "partition", path), k, path), path)
               for k in ("leader_epoch", "fetch_offset", "last_fetched_epoch")},
            "dest": _tla_int(_field(x, "dest", path), path) - 1,
            "source": _tla_int(_field(x, "source", path), path) - 1})

    def fetch_response_tla(v):
        partition = []
        ok = v["error"] == NO_ERROR and not v["diverging"]
        if ok:  # the successful response's partition carries a type field too
            partition.append(("type", "FetchResponse"))
        diverging = Record((("epoch", v["diverging_epoch"]), ("offset", v["diverging_offset"]))) \
            if v["diverging"] else "Nil"
        records = (Record((("epoch", v["record_epoch"]), ("offset", v["record_offset"]),
                           ("value", values[v["record_value"]]))),) if v["has_record"] else ()
        partition += [("error", ERRORS[v["error"]]), ("leader_epoch", v["leader_epoch"]),
                      ("fetch_offset", v["fetch_offset"]), ("diverging_epoch", diverging), ("hwm", v["hwm"]),
                      ("records", records)]
        return Record((("type", "FetchResponse"), ("partition", Record(partition)), ("dest", v["dest"] + 1),
                       ("source", v["source"] + 1)))

    def fetch_response_values(x, path):
        p = _field(x, "partition", path)
        error = _field(p, "error", path)
        if error not in ERRORS:
            raise TraceFormatError(f"{path}.partition.error: {error!r} is not an error code")
        v = {"dest": _tla_int(_field(x, "dest", path), path) - 1,
             "source": _tla_int(_field(x, "source", path), path) - 1, "error": ERRORS.index(error)}
        for k in ("leader_epoch", "fetch_offset", "hwm"):
            v[k] = _tla_int(_field(p, k, path), path)
        d = _field(p, "diverging_epoch", path)
        v["diverging"] = int(d != "Nil")
        v["diverging_epoch"] = _tla_int(_field(d, "epoch", path), path) if v["diverging"] else 0
        v["diverging_offset"] = _tla_int(_field(d, "offset", path), path) if v["diverging"] else 0
        records = _field(p, "records", path)
        records = records.get("#tup", records) if isinstance(records, dict) else records
        v["has_record"] = int(bool(records))
        if records:
            r = records[0]
            v["record_epoch"] = _tla_int(_field(r, "epoch", path), path)
            v["record_offset"] = _tla_int(_field(r, "offset", path), path)
            value = _field(r, "value", path)
            if value not in values:
                raise TraceFormatError(f"{path}: {value!r} is not one of the Values")
            v["record_value"] = values.index(value)
        return v

    def ok_shape(r):
        """The successful response's partition has one field more (type), so it comes last."""
        return [ite(and_(eq(r.raw("error"), NO_ERROR), not_(r.diverging)), 1, 0)]

    fetch_response = RecordType("FetchResponse", [
        number("dest", 0, n - 1), number("source", 0, n - 1), choice("error", ERRORS, blank=NO_ERROR),
        number("leader_epoch", 0, b.leader_epoch), number("fetch_offset", 1, off), number("hwm", 1, off),
        flag("diverging"), number("diverging_epoch", 0, b.leader_epoch), number("diverging_offset", 0, off),
        flag("has_record"), number("record_epoch", 0, b.leader_epoch), number("record_offset", 1, off),
        choice("record_value", values)],
        order=["dest", "source", ok_shape, "leader_epoch", "fetch_offset", "hwm", "error", "diverging",
               "diverging_epoch", "diverging_offset", "has_record", "record_epoch", "record_offset", "record_value"],
        to_tla=fetch_response_tla, from_tla=fetch_response_values)

    broker_side = RecordType("BrokerSideState", [
        choice("status", BROKER_STATUSES), number("broker_epoch", 0, b.broker_epoch),
        number("incarnation_id", 0, b.incarnation), flag("registered")])
    controller_side = RecordType("ControllerSideBrokerState", [
        choice("status", ("FENCED", "UNFENCED")), number("broker_epoch", 0, b.broker_epoch),
        number("incarnation_id", 0, b.incarnation)])
    controller_partition = RecordType("ControllerPartitionMetadata", [
        members("replicas", ids), members("isr", ids)] + elr_parts + [
        number("leader", -1, n - 1, nil="NoLeader", shift=1),
        number("leader_epoch", 0, b.leader_epoch), number("partition_epoch", 0, b.partition_epoch),
        members("adding", ids), members("removing", ids)])
    replica_partition = RecordType("ReplicaPartitionMetadata", [
        members("replicas", ids), members("isr", ids), members("maximal_isr", ids),
        number("leader", -1, n - 1, nil="NoLeader", shift=1), number("leader_epoch", 0, b.leader_epoch),
        number("partition_epoch", 0, b.partition_epoch)])

    def fetcher_tla(v):
        partition = Record((("fetch_offset", v["fetch_offset"]), ("last_fetched_epoch", v["last_fetched_epoch"]),
                            ("delayed", bool(v["delayed"])))) if v["added"] else "Nil"
        return Record((("partition", partition), ("pending_response", bool(v["pending_response"]))))

    def fetcher_values(x, path):
        p = _field(x, "partition", path)
        v = {"pending_response": int(bool(_field(x, "pending_response", path))), "added": int(p != "Nil"),
             "fetch_offset": 1, "last_fetched_epoch": 0, "delayed": 0}
        if p != "Nil":
            v["fetch_offset"] = _tla_int(_field(p, "fetch_offset", path), path)
            v["last_fetched_epoch"] = _tla_int(_field(p, "last_fetched_epoch", path), path)
            v["delayed"] = int(bool(_field(p, "delayed", path)))
        return v

    # A fetcher's partition is Nil or a record; `added` tells which, and the
    # record's parts are blank while it is Nil.
    fetcher = RecordType("BrokerFetcher", [
        flag("added"), number("fetch_offset", 1, off), number("last_fetched_epoch", 0, b.leader_epoch),
        flag("delayed"), flag("pending_response")], to_tla=fetcher_tla, from_tla=fetcher_values)
    peer = RecordType("PeerReplicaState", [number("leo", 0, off, nil="Nil"), number("broker_epoch", 0, b.broker_epoch)])

    def pending_tla(v):
        request = alter_request_tla(c, v, "req_") if v["has_request"] else "Nil"
        return Record((("epoch", v["epoch"]), ("request", request)))

    def pending_values(x, path):
        r = _field(x, "request", path)
        v = {"epoch": _tla_int(_field(x, "epoch", path), path), "has_request": int(r != "Nil")}
        if r != "Nil":
            v.update(alter_request_values(c, r, f"{path}.request", "req_"))
        return v

    pending_alter = RecordType("PendingAlterPartition", [
        number("epoch", 0, b.partition_epoch + 1), flag("has_request")] + alter_request_parts(c, b, "req_"),
        to_tla=pending_tla, from_tla=pending_values)
    partition_data = RecordType("PartitionData", [number("hwm", 1, off), number("leo", 1, off)])
    clean, unclean = shutdown_limits(c)
    clean_ctr, unclean_ctr = ("no_data_loss_shutdown_ctr", "data_loss_shutdown_ctr") if elr else \
        ("clean_shutdown_ctr", "unclean_shutdown_ctr")
    counters = RecordType("StateSpaceLimitCtrs", [
        number("incarn_ctr", 0, b.incarnation + 1), number(clean_ctr, 0, clean),
        number(unclean_ctr, 0, unclean), number("fence_broker_ctr", 0, c.FenceBrokerLimit),
        number("leader_shrink_isr_ctr", 0, c.LeaderShrinkIsrLimit),
        number("reassignment_ctr", 0, c.ReassignmentLimit)])
    return Types(partition_record, change_record, register_request, register_response, alter_request,
                 alter_response, fetch_request, fetch_response, broker_side, controller_side, controller_partition,
                 replica_partition, fetcher, peer, pending_alter, partition_data, counters, elr)


def types(c) -> Types:
    return _types(c)


def _set(mask: int, ids) -> frozenset:
    return frozenset(k for i, k in enumerate(ids) if mask >> i & 1)


def _mask(x, ids, path) -> int:
    from modelcheck.language.codec import json_set
    mask = 0
    for e in json_set(x, path):
        e = _tla_int(e, path) if isinstance(e, dict) else e
        if e not in ids:
            raise TraceFormatError(f"{path}: {e!r} is not a broker")
        mask |= 1 << ids.index(e)
    return mask


def _leader(code: int) -> Any:
    return "NoLeader" if code == NO_LEADER else code + 1


def _leader_code(x, path) -> int:
    return NO_LEADER if x == "NoLeader" else _tla_int(x, path) - 1


# --- the state -------------------------------------------------------------------------

# The VIEW of the module's .cfg: every variable but messages_discard and the
# auxiliary counters (aux_broker_epoch, aux_ctrs, aux_flo).
VIEW = ("con_unfenced", "con_broker_reg", "con_partition_metadata", "con_metadata_log", "broker_state",
        "broker_fetchers", "broker_metadata_log", "partition_status", "partition_metadata", "partition_data",
        "partition_leso", "partition_replica_state", "partition_pending_ap", "messages", "inv_sent",
        "inv_pos_acked", "inv_neg_acked", "inv_true_hwm", "inv_consumed")

# The network, one bounded set per message type (their union is `messages`).
MESSAGE_SETS = ("register_request", "register_response", "alter_request", "alter_response", "fetch_request",
                "fetch_response")
MESSAGE_TYPES = ("RegisterBrokerRequest", "RegisterBrokerResponse", "AlterPartitionRequest",
                 "AlterPartitionResponse", "FetchRequest", "FetchResponse")


FETCH_SETS = ("fetch_request", "fetch_response")


def keyed_fetch_sets(c) -> tuple[str, ...]:
    """The fetch sets held one slot per (dest, source) pair: those whose TLC
    order starts with dest and source. Under KIP-966's module a fetch
    request's broker_epoch comes first, so its requests are kept sorted."""
    return ("fetch_response",) if is_kip966(c) else FETCH_SETS


def fetch_pairs(c) -> list[tuple[int, int]]:
    """The (dest, source) pairs a fetch can travel between, in TLC's order of fetch messages."""
    return [(d, s) for d in range(c.BrokerCount) for s in range(c.BrokerCount) if d != s]


def int_max_code(c) -> int:
    """How aux_flo holds IntMax: one past the largest offset (it only ever
    compares as larger than every offset)."""
    return bounds(c).offset + 1


def fields(c) -> list:
    from modelcheck.language.bounded import RecordSeq, RecordSet
    from modelcheck.language.keyed import KeyedRecordSet
    from modelcheck.language.records import RecordVar
    from modelcheck.language.schema import integer, subset
    b, t, n, v = bounds(c), types(c), c.BrokerCount, len(c.Values)
    capacity = {"register_request": b.registrations, "register_response": b.registrations,
                "alter_request": b.alter_partitions, "alter_response": b.alter_partitions,
                "fetch_request": b.fetches, "fetch_response": b.fetches}
    return [
        subset("con_unfenced", n),
        RecordVar("con_broker_reg", t.controller_side, (n,)),
        RecordVar("con_partition_metadata", t.controller_partition),
        RecordSeq("con_metadata_log", t.change_record, b.metadata_log),
        RecordVar("broker_state", t.broker_side, (n,)),
        RecordVar("broker_fetchers", t.fetcher, (n, n)),
        RecordSeq("broker_metadata_log", t.change_record, b.metadata_log, (n,)),
        integer("partition_status", 0, len(ROLES) - 1, (n,)),
        RecordVar("partition_metadata", t.replica_partition, (n,)),
        RecordSeq("partition_log", t.partition_record, v, (n,)),
        RecordVar("partition_data", t.partition_data, (n,)),
        integer("partition_leso", NIL, b.offset, (n,)),
        RecordVar("partition_replica_state", t.peer, (n, n)),
        RecordVar("partition_pending_ap", t.pending_alter, (n,)),
        *[RecordSet("net_" + kind, getattr(t, kind), capacity[kind]) for kind in MESSAGE_SETS
          if kind not in keyed_fetch_sets(c)],
        # A fetcher has at most one fetch in flight: one slot per (dest, source) pair.
        *[KeyedRecordSet("net_" + kind, getattr(t, kind), ("dest", "source"), fetch_pairs(c))
          for kind in keyed_fetch_sets(c)],
        RecordSet("discarded_alter_request", t.alter_request, b.alter_partitions),
        integer("aux_broker_epoch", n, b.broker_epoch),
        RecordVar("aux_ctrs", t.counters),
        integer("aux_flo", 1, int_max_code(c), (n,)),
        subset("inv_sent", v),
        subset("inv_pos_acked", v),
        subset("inv_neg_acked", v),
        integer("inv_true_hwm", 1, b.offset),
        RecordSeq("inv_consumed", t.partition_record, v),
        # Not a variable: set (to 1 + the number of the reason) in the state a
        # step leads to where TLC could not evaluate it (see NextState.fails_if).
        integer("evaluation_error", 0, MAX_EVALUATION_ERRORS),
    ]


def variables(c, schema):
    """The module's variables as TLA+ values."""
    from modelcheck.language.bounded import UnionCodec
    from modelcheck.language.codec import Codec, Fn, IntSlot, ReplicaSetSlot, StateCodec
    comp = schema.compounds
    ids = _brokers_of(c)
    n = c.BrokerCount

    def per_broker(name):
        return Fn(ids, [comp[name].codec(schema, k) for k in range(n)])

    def per_pair(name):
        return Fn(ids, [Fn(ids, [comp[name].codec(schema, k, j) for j in range(n)]) for k in range(n)])

    class Choice(Codec):
        def __init__(self, slot, labels):
            self.slot, self.labels = slot, labels

        def encode(self, state):
            return self.labels[state[self.slot]]

        def decode(self, value, out, path):
            if value not in self.labels:
                raise TraceFormatError(f"{path}: expected one of {', '.join(self.labels)}, got {value!r}")
            out[self.slot] = self.labels.index(value)

        def slots(self):
            return [self.slot]

    class Offset(Codec):
        """An offset, or Nil (code 0); or, with ``top``, IntMax at that code."""

        def __init__(self, slot, hi, top=None):
            self.slot, self.hi, self.top = slot, hi, top

        def encode(self, state):
            v = state[self.slot]
            if self.top is not None and v == self.top:
                return INT_MAX
            return "Nil" if v == NIL else v

        def decode(self, value, out, path):
            from modelcheck.language.codec import json_int
            if value == "Nil" and self.top is None:
                out[self.slot] = NIL
                return
            v = json_int(value, path)
            if self.top is not None and v == INT_MAX:
                out[self.slot] = self.top
            elif 1 <= v <= self.hi:
                out[self.slot] = v
            else:
                raise TraceFormatError(f"{path} = {v} is outside 1..{self.hi} for these constants")

        def slots(self):
            return [self.slot]

    class Data(Codec):
        """partition_data[b]: its log (a sequence), hwm and leo."""

        def __init__(self, log, data):
            self.log, self.data = log, data

        def encode(self, state):
            rec = self.data.encode(state)
            return Record((("log", self.log.encode(state)), ("hwm", rec["hwm"]), ("leo", rec["leo"])))

        def decode(self, value, out, path):
            from modelcheck.language.codec import json_record
            x = json_record(value, ["log", "hwm", "leo"], path)
            self.log.decode(x["log"], out, f"{path}.log")
            self.data.decode({"hwm": x["hwm"], "leo": x["leo"]}, out, path)

        def slots(self):
            return self.log.slots() + self.data.slots()

    class KeptDiscards(Codec):
        """messages_discard as the port keeps it: its AlterPartition requests.
        Read from a trace that holds every discarded message (TLC's), the
        others are left out (see specs/kraft/network.py)."""

        def __init__(self, inner):
            self.inner = inner

        def encode(self, state):
            return self.inner.encode(state)

        def decode(self, value, out, path):
            from modelcheck.language.codec import json_set
            kept = [x for x in json_set(value, path)
                    if not (isinstance(x, dict) and x.get("type") not in (None, "AlterPartitionRequest"))]
            self.inner.decode(kept, out, path)

        def slots(self):
            return self.inner.slots()

    def route(x, path):
        kind = x.get("type") if isinstance(x, dict) else None
        if kind not in MESSAGE_TYPES:
            raise TraceFormatError(f"{path}: a message needs a type among {', '.join(MESSAGE_TYPES)}, got {x!r}")
        return MESSAGE_TYPES.index(kind)

    slot = schema.slot
    b = bounds(c)
    return StateCodec(schema, {
        "con_unfenced": ReplicaSetSlot(slot("con_unfenced"), ids),
        "con_broker_reg": per_broker("con_broker_reg"),
        "con_partition_metadata": comp["con_partition_metadata"].codec(schema),
        "con_metadata_log": comp["con_metadata_log"].codec(schema),
        "broker_state": per_broker("broker_state"),
        "broker_fetchers": per_pair("broker_fetchers"),
        "broker_metadata_log": per_broker("broker_metadata_log"),
        "partition_status": Fn(ids, [Choice(slot("partition_status", k), ROLES) for k in range(n)]),
        "partition_metadata": per_broker("partition_metadata"),
        "partition_data": Fn(ids, [Data(comp["partition_log"].codec(schema, k), comp["partition_data"].codec(schema, k))
                                   for k in range(n)]),
        "partition_leso": Fn(ids, [Offset(slot("partition_leso", k), b.offset) for k in range(n)]),
        "partition_replica_state": per_pair("partition_replica_state"),
        "partition_pending_ap": per_broker("partition_pending_ap"),
        "messages": UnionCodec([comp["net_" + kind].codec(schema) for kind in MESSAGE_SETS], route),
        "messages_discard": KeptDiscards(comp["discarded_alter_request"].codec(schema)),
        "aux_broker_epoch": IntSlot(slot("aux_broker_epoch"), n, b.broker_epoch),
        "aux_ctrs": comp["aux_ctrs"].codec(schema),
        "aux_flo": Fn(ids, [Offset(slot("aux_flo", k), b.offset, int_max_code(c)) for k in range(n)]),
        "inv_sent": ReplicaSetSlot(slot("inv_sent"), tuple(c.Values)),
        "inv_pos_acked": ReplicaSetSlot(slot("inv_pos_acked"), tuple(c.Values)),
        "inv_neg_acked": ReplicaSetSlot(slot("inv_neg_acked"), tuple(c.Values)),
        "inv_true_hwm": IntSlot(slot("inv_true_hwm"), 1, b.offset),
        "inv_consumed": comp["inv_consumed"].codec(schema),
    }, hidden=[slot("evaluation_error")], names_are_model_values=True)
