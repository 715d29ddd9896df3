"""A standard output that fails: said once, then dropped, never raised."""

import io
import os

from modelcheck.runtime.streams import GuardedOutput, guarded_stdout


def test_a_closed_pipe_is_said_once_and_never_raises(capfd):
    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(io.FileIO(write, "w"), encoding="utf-8", line_buffering=True)
    out = GuardedOutput(stream)
    for _ in range(3):
        assert out.write("a line\n") == 7
        out.flush()
    assert isinstance(out.failed, BrokenPipeError)
    err = capfd.readouterr().err
    assert err.count("the standard output was closed") == 1 and err.count("\n") == 1
    stream.flush()  # its descriptor now leads to /dev/null: what was left in the buffer goes there
    stream.close()


def test_a_closed_stream_is_dropped_quietly(capfd):
    stream = io.StringIO()
    out = GuardedOutput(stream)
    stream.close()
    out.write("x")
    assert isinstance(out.failed, ValueError)
    assert "is closed" in capfd.readouterr().err


def test_stdout_is_given_back(capsys):
    import sys
    before = sys.stdout
    with guarded_stdout() as guarded:
        assert sys.stdout is guarded and isinstance(guarded, GuardedOutput)
        print("through the guard")
    assert sys.stdout is before
    assert capsys.readouterr().out == "through the guard\n"
