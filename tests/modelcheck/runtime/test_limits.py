"""Stop requests from real signals (modelcheck/runtime/limits.py): Ctrl-C and
SIGTERM alike, the first recorded, the second an abort of its own kind."""

import os
import signal

import pytest

from modelcheck import exitcodes
from modelcheck.runtime.limits import StopRequest, Terminated, interrupt_requests, terminating_as_interrupts


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_first_signal_asks_the_second_aborts(sig, code):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    stop = StopRequest()
    with interrupt_requests(stop):
        os.kill(os.getpid(), sig)
        assert stop.requested and stop.signum == sig and stop.exit_code == code
        with pytest.raises(Terminated if sig == signal.SIGTERM else KeyboardInterrupt) as raised:
            os.kill(os.getpid(), sig)
        assert isinstance(raised.value, Terminated) == (sig == signal.SIGTERM)
    # the handlers are given back as they were (a shell may start us with SIGINT ignored)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_the_first_signal_is_the_one_the_exit_code_tells():
    stop = StopRequest()
    with interrupt_requests(stop):
        os.kill(os.getpid(), signal.SIGTERM)
        stop.request(signal.SIGINT)
    assert stop.exit_code == exitcodes.TERMINATED


def test_outside_a_search_sigterm_unwinds_through_finally():
    cleaned = []
    with pytest.raises(Terminated):
        with terminating_as_interrupts():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            finally:
                cleaned.append(True)
    assert cleaned == [True]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
