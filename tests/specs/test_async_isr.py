from support import async_isr_ignoring_the_pending_isr, enabled, field, model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker


def test_leader_writes_up_to_max_offset():
    m = model("async-isr", MaxOffset=1)
    s = m.init_states[0]
    t = enabled(m, s)["LeaderWrite"]
    assert field(m, t, "offsets", 0) == 1
    assert "LeaderWrite" not in enabled(m, t)


def test_controller_versions_stop_at_max_version():
    m = model("async-isr", MaxVersion=1)
    t = enabled(m, m.init_states[0])["ControllerShrinkIsr(replica=r2)"]
    assert field(m, t, "controller_version") == 1 and field(m, t, "updates", 1) == 1 << 0b101
    assert not any(k.startswith("ControllerShrinkIsr") for k in enabled(m, t))


def test_leader_request_marks_the_isr_pending():
    m = model("async-isr")
    t = enabled(m, m.init_states[0])["LeaderRequestShrinkIsr(replica=r3)"]
    assert field(m, t, "pending_isr") == 0b011 and field(m, t, "pending_version") == 0
    assert field(m, t, "requests", 0) == 1 << 0b011


def test_valid_high_watermark_can_fail_when_the_pending_isr_is_ignored(monkeypatch):
    """The invariant is not vacuous: compute the high watermark over the
    current ISR alone and the checker finds a violation."""
    mutated = async_isr_ignoring_the_pending_isr(monkeypatch)
    r = BfsChecker().check(mutated, CheckOptions(("ValidHighWatermark",)))
    assert r.result == "violation" and r.violation.invariant == "ValidHighWatermark"
    original = BfsChecker().check(model("async-isr"), CheckOptions(("ValidHighWatermark",)))
    assert original.result == "ok"
