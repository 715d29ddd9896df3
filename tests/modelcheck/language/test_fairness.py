"""Fairness for each value of a parameter (``each_value``), as KRaft's
LivenessSpec declares it: said once per action, only of the values a model has."""

from modelcheck.language.temporal import Specification, WF, each_value
from modelcheck.specs import get_spec

KIP966 = get_spec("kraft-kip966")
LIVENESS = KIP966.specification("LivenessSpec")
TWO_BROKERS = KIP966.resolve_constants({"BrokerCount": "2", "InitReplicationFactor": "2", "MinISR": "1"})
HEALING = 11


def test_a_model_keeps_only_the_conditions_of_its_own_brokers():
    assert len(LIVENESS.fairness) == 4 * HEALING  # declared for the most brokers any model has
    kept = LIVENESS.for_model(TWO_BROKERS).fairness
    assert len(kept) == 2 * HEALING
    assert {f.action.name for f in kept if f.family == "BrokerStart"} == {"BrokerStart(1)", "BrokerStart(2)"}


def test_each_broker_s_condition_is_of_an_action_its_next_takes():
    assert LIVENESS.outside_next(KIP966.name, KIP966.next) == []


def test_the_words_name_each_action_once_and_the_brokers_the_model_has():
    words = LIVENESS.for_model(TWO_BROKERS).fairness_words(TWO_BROKERS)
    assert words.startswith("weak fairness on BrokerStart(b), ReceiveBrokerRegResponse(b), ")
    assert words.endswith("UnfenceBroker(b) for each broker b in {1, 2}")
    assert words.count("BrokerStart") == 1 and "(3)" not in words
    assert LIVENESS.fairness_words() .endswith("UnfenceBroker(b) for each broker b")
    assert LIVENESS.labels()[0] == "\\A b : WF_vars(BrokerStart(b))" and len(LIVENESS.labels()) == HEALING


def test_a_condition_on_a_whole_action_reads_as_before():
    act = KIP966.next[0]
    spec = Specification("S", (WF(act),) + each_value("SF", act, "b", range(2)))
    assert spec.fairness_words() == f"strong fairness on {act.name}(b) for each broker b; weak fairness on {act.name}"
    assert spec.labels() == [f"WF_vars({act.name})", f"\\A b : SF_vars({act.name}(b))"]


def account(f, taken_at=None, disabled=(0, 1)):
    from modelcheck.capabilities.liveness.lasso import FairnessAccount
    return FairnessAccount(f, True, taken_at, list(disabled), 2)


def test_a_family_whose_members_agree_is_told_once_with_the_other_such_families():
    from modelcheck.capabilities.liveness.lasso import account_lines
    conditions = LIVENESS.for_model(TWO_BROKERS).fairness
    lines = account_lines([account(f) for f in conditions], TWO_BROKERS)
    assert lines == ["weak fairness on " + ", ".join(f"{a}(b)" for a in dict.fromkeys(f.family for f in conditions))
                     + " for each broker b in {1, 2}: not enabled anywhere on the cycle"]


def test_members_that_differ_are_told_one_by_one():
    from modelcheck.capabilities.liveness.lasso import account_lines
    conditions = [f for f in LIVENESS.for_model(TWO_BROKERS).fairness if f.family in ("BrokerStart", "UnfenceBroker")]
    accounts = [account(f, taken_at=(0, 1) if f.action.name == "UnfenceBroker(2)" else None) for f in conditions]
    assert account_lines(accounts, TWO_BROKERS) == [
        "weak fairness on BrokerStart(b) for each broker b in {1, 2}: not enabled anywhere on the cycle",
        "weak fairness on UnfenceBroker(1): not enabled anywhere on the cycle",
        "weak fairness on UnfenceBroker(2): taken on the cycle (the step from state 1 to state 2)"]
