"""The command line as users meet it: verdicts, JSON, exit codes, bad input."""

import json
import os
import re
import subprocess
import sys

import pytest

from modelcheck import __version__
from support import ROOT, invoke, invoke_json, one_error_line, run_on_terminal, run_subprocess

JSON_FIELDS = {"spec", "engine", "constants", "invariants", "result", "distinct_states", "depth", "seconds", "stopped",
               "properties", "specification", "violation", "symmetry", "view", "notes", "resumed_with",
               "resume_seconds", "fingerprint_bits", "collision_probability", "timings",
               "kernel_build"}


def test_ok_run_as_json(in_tmp):
    code, out, err = invoke_json("run", "kip320", "--const", "Replicas=2")
    assert code == 0
    assert set(out) == JSON_FIELDS
    assert (out["result"], out["distinct_states"], out["depth"], out["violation"]) == ("ok", 5973, 18, None)
    assert out["constants"] == {"Replicas": ["r1", "r2"], "LogSize": 2, "MaxRecords": 2, "MaxLeaderEpoch": 2}
    assert out["invariants"] == ["TypeOk", "WeakIsr", "StrongIsr"]
    # that two of the 5,973 states share a 64-bit fingerprint: 5973 * 5972 / 2^65
    assert out["fingerprint_bits"] == 64 and out["collision_probability"] == pytest.approx(5973 * 5972 / 2 ** 65)
    assert any(n.startswith("fingerprint collision probability (64-bit fingerprints): 9.7e-13 that two of the "
                            "5,973 states found share one; ") for n in out["notes"])


def test_every_report_gives_the_collision_estimate(in_tmp):
    """Stopped, violated or complete, the count rests on fingerprints."""
    for args in (("run", "kip320", "--max-states", "1000"), ("run", "kip320-first-try", "--const", "Replicas=3",
                                                             "--inv", "StrongIsr"), ("run", "kip320", "--engine", "bfs",
                                                                                      "--const", "Replicas=2")):
        _, out, _ = invoke_json(*args)
        assert out["fingerprint_bits"] == 64 and 0 < out["collision_probability"] < 1e-9, args
        assert sum(n.startswith("fingerprint collision probability") for n in out["notes"]) == 1, args


def test_violation_exits_12_and_writes_a_trace(in_tmp):
    code, out, _ = invoke_json("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12
    assert out["result"] == "violation"
    assert out["violation"]["invariant"] == "StrongIsr" and out["violation"]["trace_length"] == 13
    path = out["violation"]["trace_file"]
    assert path == os.path.join("modelcheck-out", "kip320-first-try", "kip320-first-try-StrongIsr.itf.json")
    assert len(json.load(open(in_tmp / path))["states"]) == 13


def test_text_report_prints_the_trace(in_tmp):
    code, out, _ = invoke("run", "kip320-first-try", "--const", "Replicas=3", "--inv", "StrongIsr")
    assert code == 12
    assert out.count("StrongIsr is violated") == 1
    assert "Invariant StrongIsr is violated in state 13, at the end of this shortest counterexample:" in out
    assert "State 13: FollowerTruncate(leader=r2, follower=r3)\n  r3  log | id0@2 _ -> | _ _\n" in out
    assert "|->" not in out and ":>" not in out  # no TLA+ notation
    assert "distinct states  184,868" in out and "trace" in out


REPORT = """\
modelcheck __VERSION__ · truncate-to-hw · engine fast
spec        port of TLA+ module KafkaTruncateToHighWatermark, from github.com/hachikuji/kafka-specification
constants   Replicas={r1, r2} LogSize=2 MaxRecords=2 MaxLeaderEpoch=2
invariants  WeakIsr  Below a presumed leader's high watermark, every replica in that leader's own cached ISR has exactly the leader's records.

Invariant WeakIsr is violated in state 9, at the end of this shortest counterexample:

State 1: Init
  replica  leader  epoch  hw  isr  log
  r1       NONE    -1     0   {}   | _ _
  r2       NONE    -1     0   {}   | _ _
  quorum  leader NONE · epoch -1 · isr {r1, r2}
  no LeaderAndIsr request yet
  counters  nextRecordId 0 · nextLeaderEpoch 0

State 2: ControllerElectLeader(newLeader=r1)
  quorum  leader NONE -> r1 · epoch -1 -> 0
  + request epoch 0: leader r1 · isr {r1, r2} · pending for r1, r2
  counters  nextLeaderEpoch 0 -> 1

State 3: ControllerShrinkIsr(replica=r2)
  quorum  epoch 0 -> 1 · isr {r1, r2} -> {r1}
  + request epoch 1: leader r1 · isr {r1} · pending for r1, r2
  counters  nextLeaderEpoch 1 -> 2

State 4: BecomeLeader(leaderAndIsrRequest=0, leader=r1)
  r1  leader NONE -> self · epoch -1 -> 0 · isr {} -> {r1, r2}
  request epoch 0  pending for r1, r2 -> r2

State 5: LeaderWrite(replica=r1)
  r1  log | _ _ -> | id0@0 _
  counters  nextRecordId 0 -> 1

State 6: BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r2, leaderAndIsrRequest=0)
  r2  leader NONE -> r1 · epoch -1 -> 0 · isr {} -> {r1, r2}
  request epoch 0  pending for r2 -> -

State 7: FollowerReplicate(follower=r2, leader=r1)
  r2  log | _ _ -> | id0@0 _

State 8: LeaderIncHighWatermark(leader=r1)
  r1  hw 0 -> 1 · log | id0@0 _ -> id0@0 | _

State 9: BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r2, leaderAndIsrRequest=1)
  r2  epoch 0 -> 1 · isr {r1, r2} -> {r1} · log | id0@0 _ -> | _ _
  request epoch 1  pending for r1, r2 -> r1

WeakIsr broken: r1 presumes leadership with hw=1, but r2 is in r1's own ISR {r1, r2} and has no record at offset 0 (r1 has id0@0)

  distinct states  1,294
  depth            9
  time             ...
  reached          LeaderElected (depth 3), HighWatermarkAdvanced (depth 6)
  trace            modelcheck-out/truncate-to-hw/truncate-to-hw-WeakIsr.itf.json  (modelcheck show modelcheck-out/truncate-to-hw/truncate-to-hw-WeakIsr.itf.json)
note: fingerprint collision probability (64-bit fingerprints): 4.5e-14 that two of the 1,294 states found share one
"""


def without_time(report: str) -> str:
    return "\n".join("  time             ..." if line.startswith("  time ") else line
                     for line in report.splitlines()) + "\n"


def test_the_text_report_as_pinned(in_tmp):
    """The whole report of a small violation: the header (what each
    invariant means, the upstream module), the counterexample as
    `modelcheck show --diff` draws it, why it breaks, and the figures."""
    code, out, _ = invoke("run", "truncate-to-hw", "--const", "Replicas=2", "--inv", "WeakIsr")
    assert code == 12
    assert without_time(out) == REPORT.replace("__VERSION__", __version__)


@pytest.mark.parametrize("args", [("truncate-to-hw", "--const", "Replicas=2"),
                                  ("kip320", "--const", "Replicas=2")])
def test_the_report_is_the_same_whichever_engine_ran(tmp_path, monkeypatch, args):
    """bfs (the reference) and fast print the same report, trace file and all,
    but for the engine's name and the time."""
    reports, traces = {}, {}
    for engine in ("bfs", "fast"):
        os.makedirs(tmp_path / engine)
        monkeypatch.chdir(tmp_path / engine)
        code, out, _ = invoke("run", *args, "--engine", engine)
        reports[engine] = without_time(out).replace(f"engine {engine}", "engine X")
        out_dir = os.path.join("modelcheck-out", args[0])
        traces[engine] = [json.load(open(os.path.join(out_dir, name)))["states"]
                          for name in sorted(os.listdir(out_dir))] if os.path.isdir(out_dir) else []
    assert reports["bfs"] == reports["fast"]
    assert traces["bfs"] == traces["fast"]


def test_bounded_run(in_tmp):
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2", "--max-depth", "4")
    assert code == 0 and out["result"] == "bounded-ok" and out["depth"] == 4


def test_config_file_sets_constants_and_invariants(in_tmp):
    (in_tmp / "mc.cfg").write_text("CONSTANTS Replicas = {r1, r2, r3}\nINVARIANT StrongIsr\nVIEW vars\n")
    code, out, err = invoke_json("run", "kip320-first-try", "--config", "mc.cfg")
    assert code == 12 and out["invariants"] == ["StrongIsr"] and out["violation"]["trace_length"] == 13
    assert "VIEW vars is not used" in err
    # --const and --inv override the file
    code, out, _ = invoke_json("run", "kip320-first-try", "--config", "mc.cfg", "--const", "Replicas=2",
                               "--inv", "WeakIsr")
    assert code == 0 and out["invariants"] == ["WeakIsr"] and out["distinct_states"] == 8429


@pytest.mark.parametrize("args, fragment", [
    (["run", "kip999"], "unknown spec 'kip999'"),
    (["run", "kip320", "--inv", "Nope"], "no invariant 'Nope'"),
    (["run", "kip320", "--const", "Nope=1"], "no constant 'Nope'"),
    (["run", "kip320", "--const", "LogSize=abc"], "must be an integer"),
    (["run", "kip320", "--const", "Replicas=0"], "at least 1"),
    (["run", "kip320", "--const", "LogSize=0"], "at least 1"),
    (["run", "kip320", "--const", "MaxRecords=0"], "at least 1"),
    (["run", "kip320", "--const", "MaxLeaderEpoch=-1"], "at least 0"),
    (["run", "kip320", "--const", "LogSize"], "NAME=VALUE"),
    (["run", "kip320", "--max-depth", "0"], "at least 1"),
    (["run", "kip320", "--engine", "warp"], "'warp' is not one of 'bfs', 'fast', 'spark', 'z3'"),
    (["run", "kip320", "--trace-out", "/nonexistent-dir/t.json"], "does not exist"),
    (["run", "kip320", "--config", "missing.cfg"], "cannot read config"),
    (["run", "kip320", "--no-such-flag"], "no-such-flag"),
    (["graph", "kip320", "--out", "g.txt"], "extension"),
])
def test_bad_input_is_one_line_and_exit_2(in_tmp, args, fragment):
    code, out, err = invoke(*args)
    assert code == 2
    assert fragment in one_error_line(err)


@pytest.mark.parametrize("args, fragment", [
    (["run", "kip32"], "unknown spec 'kip32'; did you mean kip320? (known specs: async-isr, kafka-clients, "),
    (["run", "kip320", "--inv", "StrongISR"], "no invariant 'StrongISR'; did you mean StrongIsr? (its invariants, "
                                              "closest first: StrongIsr, "),
    (["simulate", "kip320", "--inv", "strongisr"], "did you mean StrongIsr?"),
    (["run", "kip320", "--prop", "EpochsConverg"], "did you mean EpochsConverge? (its properties: "),
    (["run", "kip320", "--prop", "EpochsConverge", "--specification", "NoFair"], "did you mean NoFairSpec?"),
    (["run", "kip320", "--const", "replicas=2"], "no constant 'replicas'; did you mean Replicas? (its constants: "
                                                 "Replicas, LogSize, MaxRecords, MaxLeaderEpoch)"),
    (["run", "kraft-3.5", "--const", "Brokercount=2"], "did you mean BrokerCount? (its constants, closest first: "
                                                       "BrokerCount, "),
])
def test_a_mistyped_name_gets_the_closest_suggested(in_tmp, args, fragment):
    code, _, err = invoke(*args)
    assert code == 2 and fragment in one_error_line(err)


def test_a_long_list_of_names_is_cut_to_the_first_few(in_tmp):
    """kip320's 24 invariants: five of them and a count, not all on one line."""
    code, _, err = invoke("run", "kip320", "--inv", "Nope")
    assert code == 2 and one_error_line(err).endswith(
        "kip320 has no invariant 'Nope' (its invariants: TypeOk, WeakIsr, StrongIsr, LeaderInIsr, "
        "RequestsSentBelowNextEpoch and 19 more; `modelcheck list` shows them all)")


def test_malformed_config_names_its_line(in_tmp):
    (in_tmp / "bad.cfg").write_text("CONSTANTS\n  Replicas = {r1, r2\n")
    code, _, err = invoke("run", "kip320", "--config", "bad.cfg")
    assert code == 2 and "bad.cfg:2:" in err and len(err.strip().splitlines()) == 1


def test_existing_trace_out_is_not_overwritten(in_tmp):
    (in_tmp / "keep.json").write_text("mine")
    code, _, err = invoke("run", "kip320", "--trace-out", "keep.json")
    assert code == 2 and "already exists" in err
    assert (in_tmp / "keep.json").read_text() == "mine"


def test_list_shows_every_spec():
    code, out, _ = invoke("list", "--json")
    specs = {s["name"]: s for s in json.loads(out)}
    assert set(specs) == {"truncate-to-hw", "kip101", "kip279", "kip320", "kip320-first-try", "async-isr",
                          "kip320-consumer", "kafka-clients", "kraft-3.5", "kraft-kip966"}
    assert "FencedFollowerFetch" in specs["kip320"]["actions"]
    assert specs["kip320"]["constants"] == {"Replicas": "{r1, r2, r3}", "LogSize": "2", "MaxRecords": "2",
                                            "MaxLeaderEpoch": "2"}
    assert "LeaderInIsr" in specs["kip320"]["invariants"]


def test_graph_command(in_tmp):
    code, out, _ = invoke_json("graph", "kip320", "--const", "Replicas=2", "--out", "g.graphml")
    assert code == 0 and out["nodes"] == 5973 and (in_tmp / "g.graphml").exists()
    code, _, err = invoke("graph", "kip320", "--out", "big.dot", "--max-states", "100")
    assert code == 2 and "more than 100 reachable states" in err


def test_installed_console_script_runs():
    exe = os.path.join(os.path.dirname(sys.executable), "modelcheck")
    if not os.path.exists(exe):
        pytest.skip("modelcheck console script not installed next to this interpreter")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "modelcheck" in out.stdout


def test_progress_is_quiet_when_piped(in_tmp):
    """Piped, a run says nothing on stderr but, on the first run with these
    constants, the one line before its C kernel is built."""
    from modelcheck.engines.kernels import BUILDING
    proc = run_subprocess("run", "kip320", "--const", "Replicas=2", cwd=in_tmp)
    assert proc.returncode == 0 and proc.stderr in ("", BUILDING + "\n")


def test_progress_shows_on_a_terminal(in_tmp):
    """stderr on a pseudo-terminal gets the progress line, and before the
    search what the run is doing (the spec read, the model built, the kernel)."""
    code, seen, out = run_on_terminal("run", "kip320", "--max-depth", "13", "--json", cwd=in_tmp, timeout=120)
    assert "states" in seen and "depth" in seen and "states/s" in seen
    assert "reading kip320" in seen and "building the model of kip320 for these constants" in seen
    assert "generating the C kernel's source" in seen
    assert json.loads(out)["result"] == "bounded-ok"


def test_the_header_is_printed_when_the_run_starts(in_tmp):
    """A long run says at once what it checks: the header reaches stdout
    while the search is still going (the bfs engine on the default kip320
    model takes several seconds)."""
    from support import ROOT
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-c", "from cli import main; main()", "run", "kip320", "--engine", "bfs",
                             "--quiet"], cwd=in_tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        header = [proc.stdout.readline() for _ in range(6)]
        still_running = proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    assert header[0].startswith("modelcheck ") and "kip320 · engine bfs" in header[0]
    assert header[3].startswith("invariants  TypeOk ") and header[5].startswith("            StrongIsr  Below")
    assert still_running


def test_list_says_what_each_invariant_means(in_tmp):
    code, out, _ = invoke("list")
    assert code == 0
    kip320 = out.split("\nkip320  ")[1].split("\n\n")[0].splitlines()
    assert kip320[0] == ("(port of TLA+ module Kip320, from github.com/hachikuji/kafka-specification; its temporal "
                         "properties and the NoFairSpec and FairFetchSpec specifications port Kip320Live, written in "
                         "this repository (tla/Kip320Live.tla))")
    assert "    StrongIsr*    Below a presumed leader's high watermark, every replica in the quorum's (true) ISR " \
           "has exactly the leader's records, so any electable replica holds all data consumers may have seen." \
        in kip320
    assert "    LeaderInIsr   The quorum's leader is a member of the quorum's ISR." in kip320
    # a module written here is named by its file, which is in the repository; an upstream one is not
    written = re.findall(r"written in this repository \((tla/\w+\.tla)\)", out)
    assert written == ["tla/Kip320Live.tla", "tla/Kip320Consumer.tla", "tla/KafkaClients.tla"]
    assert all(os.path.exists(os.path.join(ROOT, path)) for path in written)
    assert out.count(".tla") == len(written)
    consumer = out.split("\nkip320-consumer  ")[1]
    assert consumer.startswith("(port of TLA+ module Kip320Consumer, written in this repository "
                               "(tla/Kip320Consumer.tla); it extends Kip320)")
    clients = out.split("\nkafka-clients  ")[1]
    assert clients.startswith("(port of TLA+ module KafkaClients, written in this repository (tla/KafkaClients.tla); "
                              "it extends Kip320Consumer)")


def test_run_help_names_every_engine(in_tmp):
    code, out, _ = invoke("run", "--help")
    assert code == 0
    engine_option = " ".join(out.split("--engine ")[1].split("--const")[0].split())
    assert engine_option == "[bfs|fast|spark|z3] Exploration engine (listed below). [default: fast]"
    engines = out.split("Engines:\n")[1].splitlines()
    # one entry each: the name four spaces in, its description after it (continued further in)
    assert [line.split()[0] for line in engines if line.startswith("    ") and not line.startswith("     ")] \
        == ["bfs", "fast", "spark", "z3"]


@pytest.mark.parametrize("args, said", [
    (("--fingerprint-bits", "96"), "--fingerprint-bits must be 64 or 128, not 96"),
    (("--fingerprint-bits", "128", "--engine", "bfs"), "--fingerprint-bits applies only to --engine fast"),
    (("--fingerprint-bits", "128", "--prop", "LeaderEventuallyElected"), "--fingerprint-bits 128 is for invariant"),
])
def test_fingerprint_bits_that_cannot_be_had_are_one_line(in_tmp, args, said):
    code, _, err = invoke("run", "kip320", "--const", "Replicas=2", *args)
    assert code == 2 and said in one_error_line(err)


def test_128_bit_fingerprints_are_reported(in_tmp):
    code, out, _ = invoke_json("run", "kip320", "--const", "Replicas=2", "--fingerprint-bits", "128")
    assert code == 0 and (out["distinct_states"], out["fingerprint_bits"]) == (5973, 128)
    assert out["collision_probability"] == pytest.approx(5973 * 5972 / 2 ** 129)
