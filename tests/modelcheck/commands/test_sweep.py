import json

import pytest

from support import invoke


def test_each_combination_is_a_full_run(in_tmp):
    code, out, _ = invoke("sweep", "kip320", "--vary", "Replicas=1,2", "--vary", "MaxLeaderEpoch=0,2",
                          "--format", "json", "-q")
    assert code == 0
    rows = json.loads(out)
    assert [(r["Replicas"], r["MaxLeaderEpoch"]) for r in rows] == [
        ("{r1}", "0"), ("{r1}", "2"), ("{r1, r2}", "0"), ("{r1, r2}", "2")]
    assert rows[3]["distinct_states"] == 5973 and rows[3]["depth"] == 18 and rows[3]["result"] == "ok"


def test_counterexamples_are_named_after_their_combination(in_tmp):
    (in_tmp / "t").mkdir()
    code, out, _ = invoke("sweep", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr",
                          "--vary", "MaxLeaderEpoch=1,2", "--trace-dir", "t", "--format", "markdown", "-q")
    assert code == 12  # a row breaks an invariant
    lines = out.strip().splitlines()
    assert lines[0].startswith("| MaxLeaderEpoch | result |")
    assert "| 2 | StrongIsr violated |" in out
    assert (in_tmp / "t" / "kip320-first-try-MaxLeaderEpoch=2.itf.json").exists()


@pytest.mark.parametrize("args, fragment", [
    ((), "at least one --row or --vary"),
    (("--row", "LogSize"), "NAME=VALUE assignments"),
    (("--row", "LogSize=1 LogSize=2"), "given twice"),
    (("--row", "LogSize=1", "--vary", "LogSize=1,2"), "both --row and --vary"),
    (("--vary", "Replicas"), "NAME=V1,V2"),
    (("--vary", "Nope=1,2"), "no constant 'Nope'"),
    (("--vary", "LogSize=1,x"), "must be an integer"),
    (("--vary", "LogSize=1", "--vary", "LogSize=2"), "given twice"),
    (("--vary", "LogSize=1", "--trace-dir", "afile"), "not a directory"),
    (("--vary", "LogSize=1", "--columns", "result,nope"), "no column nope"),
])
def test_bad_sweeps_are_one_line_errors(in_tmp, args, fragment):
    (in_tmp / "afile").write_text("")
    code, _, err = invoke("sweep", "kip320", *args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_explicit_rows_show_every_named_constant(in_tmp):
    code, out, _ = invoke("sweep", "kip320", "--row", "Replicas=1 LogSize=1", "--row", "Replicas={a,b}",
                          "--format", "json", "-q")
    rows = json.loads(out)
    assert [(r["Replicas"], r["LogSize"]) for r in rows] == [("{r1}", "1"), ("{a, b}", "2")]
    assert rows[1]["distinct_states"] == 5973


def test_traces_never_replace_existing_files(in_tmp):
    args = ("sweep", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr", "--vary", "MaxLeaderEpoch=2",
            "--format", "json", "--columns", "MaxLeaderEpoch,trace_length,trace_file", "-q")
    first = json.loads(invoke(*args)[1])[0]
    second = json.loads(invoke(*args)[1])[0]
    assert first == {"MaxLeaderEpoch": "2", "trace_length": 13,
                     "trace_file": "modelcheck-out/kip320-first-try/kip320-first-try-MaxLeaderEpoch=2.itf.json"}
    assert second["trace_file"] == "modelcheck-out/kip320-first-try/kip320-first-try-MaxLeaderEpoch=2-2.itf.json"


def test_each_invariant_is_checked_alone_in_a_column_of_its_own(in_tmp):
    (in_tmp / "t").mkdir()
    code, out, _ = invoke("sweep", "kafka-clients", "--const", "MaxLeaderEpoch=1", "--const", "GroupHandover=FALSE",
                          "--const", "AwaitCommittedEpoch=FALSE", "--vary", "MetadataVersionCheck=TRUE,FALSE",
                          "--inv", "NoLeaderRegression", "--inv", "NoAckedWriteLost", "--each-inv", "--trace-dir", "t",
                          "--format", "json", "-q")
    assert code == 12
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(out)]
    shared = {"MaxLeaderEpoch": "1", "GroupHandover": "FALSE", "AwaitCommittedEpoch": "FALSE"}
    assert rows == [
        {"MetadataVersionCheck": "TRUE", **shared, "NoLeaderRegression": "holds", "NoAckedWriteLost": "holds"},
        {"MetadataVersionCheck": "FALSE", **shared, "NoLeaderRegression": "violated (13 states)",
         "NoAckedWriteLost": "holds"}]
    assert [p.name for p in (in_tmp / "t").iterdir()] == [
        "kafka-clients-MetadataVersionCheck=FALSE-NoLeaderRegression.itf.json"]


def test_a_sweep_exits_as_run_does_for_its_worst_row(in_tmp):
    """0 only when every row holds; 12 when a row breaks an invariant, even
    if another holds; 13 when a row violates a temporal property."""
    holds = ("sweep", "kip320-first-try", "--inv", "StrongIsr", "--vary", "LogSize=1", "-q")
    assert invoke(*holds, "--const", "Replicas=2")[0] == 0
    assert invoke(*holds, "--vary", "Replicas=2,3")[0] == 12
    code, out, _ = invoke("sweep", "kip320", "--const", "Replicas=2", "--vary", "LogSize=1",
                          "--prop", "LeaderEventuallyElected", "--specification", "NoFairSpec", "--format", "json", "-q")
    assert code == 13
    assert [r["LeaderEventuallyElected"] for r in json.loads(out)] == ["violated (stutters)"]


def test_json_rows_name_the_shared_constants(in_tmp):
    code, out, _ = invoke("sweep", "kip320", "--const", "Replicas={a,b}", "--const", "MaxLeaderEpoch=1",
                          "--vary", "LogSize=1,2", "--format", "json", "-q")
    rows = json.loads(out)
    assert [{k: r[k] for k in ("LogSize", "Replicas", "MaxLeaderEpoch")} for r in rows] == [
        {"LogSize": "1", "Replicas": "{a, b}", "MaxLeaderEpoch": "1"},
        {"LogSize": "2", "Replicas": "{a, b}", "MaxLeaderEpoch": "1"}]
    text = invoke("sweep", "kip320", "--const", "Replicas={a,b}", "--const", "MaxLeaderEpoch=1",
                  "--vary", "LogSize=1", "-q")[1]
    assert text.splitlines()[0].split()[:2] == ["LogSize", "result"]  # the table keeps to what varies


def test_runs_that_name_the_same_file_get_one_each_without_a_warning(in_tmp):
    """Two rows with the same constants, and a second --each-inv sweep whose
    per-invariant files exist: each trace gets a fresh name, with no
    warning about a --trace-out that was never given."""
    code, out, err = invoke("sweep", "kip320-first-try", "--inv", "StrongIsr", "--vary", "LogSize=1,1",
                            "--format", "json", "-q")
    assert code == 12 and "already exists" not in err and "warning" not in err, err
    assert [r["trace_file"] for r in json.loads(out)] == [
        "modelcheck-out/kip320-first-try/kip320-first-try-LogSize=1.itf.json",
        "modelcheck-out/kip320-first-try/kip320-first-try-LogSize=1-2.itf.json"]
    each = ("sweep", "kip320-first-try", "--inv", "StrongIsr", "--vary", "LogSize=1", "--each-inv", "--trace-dir", "t",
            "-q")
    assert invoke(*each)[0] == 12
    code, out, err = invoke(*each)
    assert code == 12 and err == "", err
    assert sorted(p.name for p in (in_tmp / "t").iterdir()) == [
        "kip320-first-try-LogSize=1-StrongIsr-2.itf.json", "kip320-first-try-LogSize=1-StrongIsr.itf.json"]


def test_an_interruption_between_runs_counts_the_runs_done(in_tmp):
    """The wording when the sweep stopped between runs (every row done is
    complete); the other case, a run cut short, is in test_cli_interrupts."""
    from modelcheck.runtime.progress import Progress
    from modelcheck.runs.run import RunRequest
    from modelcheck.commands.sweep import sweep, written_text
    outcome = sweep(RunRequest(spec="kip320", consts=("Replicas=1",)), [{"LogSize": "1"}, {"LogSize": "2"}],
                    str(in_tmp), Progress(enabled=False))
    outcome.planned, outcome.interrupted = 3, True
    assert written_text(outcome).strip() == "Interrupted after 2 of 3 runs."


LONG_ROW = ("UncleanElection=FALSE ConsumerFencing=FALSE TruncationCheck=FALSE AcksAll=FALSE ProduceFencing=FALSE "
            "UnknownEpochBackoff=FALSE MetadataVersionCheck=FALSE ConsumerRestart=FALSE GroupHandover=FALSE "
            "CommitLeaderEpoch=FALSE ValidateCommitted=FALSE AwaitCommittedEpoch=FALSE")


def test_a_row_of_many_constants_gets_a_trace_name_the_file_system_takes(in_tmp):
    """docs/kafka-clients.md's first sweep: twelve switches in a row, and
    the invariant after them, made a name past 255 bytes, so the trace went
    to a temporary directory with a warning."""
    code, out, err = invoke("sweep", "kafka-clients", "--engine", "fast", "--each-inv", "--inv", "NoAckedWriteLost",
                            "--row", LONG_ROW, "-q")
    assert code == 12 and err == "", err
    [written] = [p.name for p in (in_tmp / "modelcheck-out" / "kafka-clients").iterdir()]
    assert len(written) < 200 and written.startswith("kafka-clients-UncleanElection=FALSE-ConsumerFencing=FALSE-")
    assert written.endswith("-NoAckedWriteLost.itf.json") and f"modelcheck-out/kafka-clients/{written}" in out


def test_long_rows_that_differ_only_at_the_end_get_names_of_their_own():
    from modelcheck.commands.sweep import trace_name
    row = dict(pair.split("=") for pair in LONG_ROW.split())
    names = {trace_name("kafka-clients", {**row, "AwaitCommittedEpoch": v}) for v in ("FALSE", "TRUE")}
    assert len(names) == 2 and all(len(n) < 160 for n in names)
    assert trace_name("kip320", {"Replicas": "2"}) == "kip320-Replicas=2.itf.json"  # a short one stays whole
