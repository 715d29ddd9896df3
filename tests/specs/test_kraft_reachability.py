"""The KRaft specs' reachability checks that constants rule out: the report
says why (no fault the limits allow can move the leader, or empty the ISR),
not that the model may be vacuous; and the reason is only given where no
state satisfies the check, which the search confirms."""

import pytest

from support import invoke
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.specs import get_spec

TWO = {"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1}
SHUTDOWNS = {"kraft-3.5": ("CleanShutdownLimit", "UncleanShutdownLimit"),
             "kraft-kip966": ("NoDataLossShutdownLimit", "DataLossShutdownLimit")}


def limits(spec: str, isr: int, fence: int = 0, clean: int = 0, unclean: int = 0, shrink: int = 0) -> dict:
    clean_name, unclean_name = SHUTDOWNS[spec]
    return {**TWO, "InitIsrSize": isr, "FenceBrokerLimit": fence, clean_name: clean, unclean_name: unclean,
            "LeaderShrinkIsrLimit": shrink}


@pytest.mark.parametrize("spec", ["kraft-3.5", "kraft-kip966"])
@pytest.mark.parametrize("given, ruled_out", [
    ({"isr": 2}, {"LeaderChanged", "NoLeaderAtAll"}),  # nothing moves
    ({"isr": 2, "fence": 1}, {"NoLeaderAtAll"}),  # one fault, two in the ISR
    ({"isr": 2, "unclean": 1}, {"NoLeaderAtAll"}),
    ({"isr": 1, "shrink": 1}, {"LeaderChanged", "NoLeaderAtAll"}),  # a shrink, but no fault to take the leader out
    ({"isr": 1, "fence": 1}, set()),  # the one ISR member fenced: nothing is said
])
def test_a_check_said_to_be_out_of_reach_is_never_reached(spec, given, ruled_out):
    definition = get_spec(spec)
    constants = definition.resolve_constants({k: str(v) for k, v in limits(spec, **given).items()})
    said = {name for name in ("LeaderChanged", "NoLeaderAtAll") if definition.unreachable_reason(name, constants)}
    assert said == ruled_out
    if said:
        reached = BfsChecker().check(definition.instantiate(constants), CheckOptions(())).sometimes
        assert {name for name in said if reached[name] is not None} == set()


def test_the_report_says_why_instead_of_vacuous(in_tmp):
    consts = [a for k, v in limits("kraft-kip966", isr=2).items() for a in ("--const", f"{k}={v}")]
    code, text, _ = invoke("run", "kraft-kip966", *consts, "-q")
    assert code == 0 and "vacuous" not in text
    assert "  never reached    LeaderChanged, as expected with these constants: no fencing, shutdown or " \
           "reassignment is allowed, so broker 1 stays the leader\n" in text
    assert "                   NoLeaderAtAll, as expected with these constants: the limits allow no fencing or " \
           "shutdowns, each taking at most one broker out of the ISR, which starts with 2\n" in text


def test_three_brokers_fenced_once_keep_a_leader():
    """kraft-kip966 on three brokers all in the ISR, fenced once (152,650
    states, NoLeaderAtAll never reached): the reason the report gives."""
    definition = get_spec("kraft-kip966")
    constants = definition.resolve_constants({"BrokerCount": "3", "InitReplicationFactor": "3", "MinISR": "2",
                                              "InitIsrSize": "3", "DataLossShutdownLimit": "0",
                                              "FenceBrokerLimit": "1"})
    assert definition.unreachable_reason("NoLeaderAtAll", constants) == (
        "the limits allow 1 fencing or shutdown, each taking at most one broker out of the ISR, which starts with 3")
    assert definition.unreachable_reason("LeaderChanged", constants) is None
