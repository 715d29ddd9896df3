import pytest

from modelcheck.loading.cfgfile import parse_config
from modelcheck.errors import InputError

TLC_STYLE = r"""
\* a model for Kip320
CONSTANTS
    Replicas = {r1, r2}
    LogSize = 2   MaxRecords = 2
    MaxLeaderEpoch = 2
    r1 = r1
(* the spec itself
   is not evaluated *)
INIT Init
NEXT Next
INVARIANT TypeOk
INVARIANTS WeakIsr StrongIsr
CHECK_DEADLOCK FALSE
"""


def test_reads_constants_invariants_and_deadlock_flag():
    cfg = parse_config(TLC_STYLE, "mc.cfg")
    assert cfg.constants == {"Replicas": "{r1,r2}", "LogSize": "2", "MaxRecords": "2", "MaxLeaderEpoch": "2"}
    assert cfg.invariants == ["TypeOk", "WeakIsr", "StrongIsr"]
    assert cfg.check_deadlock is False
    assert cfg.init == ("Init", 10) and cfg.next == ("Next", 11)
    assert any("INIT" in w for w in cfg.unused()) and any("NEXT" in w for w in cfg.unused())


@pytest.mark.parametrize("text, line, fragment", [
    ("CONSTANTS\n  LogSize 2\n", 2, "expected ="),
    ("CONSTANTS\n  Replicas = {r1, r2\n", 2, "expected , or }"),
    ("CONSTANTS\n LogSize = 2\nbogus\n", 3, "expected = after constant bogus"),
    ("bogus\nCONSTANTS\n", 1, "section keyword"),
    ("INVARIANT\n", 1, "names no invariant"),
    ("CONSTANTS\n  LogSize = 2\n  LogSize = 3\n", 3, "given twice"),
    ("INIT Init Other\n", 1, "INIT names one operator"),
    ("CONSTANTS\n  Replicas <- 3\n", 2, "expected the name of a definition"),
    ("CONSTANTS\n  Replicas <-[Mod MCReplicas\n", 2, "a module name in brackets"),
    ("CONSTANTS\n  Replicas <- A\n  Replicas <- B\n", 3, "given twice"),
    ("(* never closed\nCONSTANTS\n", 1, "unterminated"),
    ("CHECK_DEADLOCK maybe\n", 1, "TRUE or FALSE"),
    ("CONSTANTS\n  LogSize =\n", 2, "a value is missing at the end of the file"),
    ("CONSTANTS\n  LogSize = =\n", 2, "expected a value, got '='"),
    ("CONSTANTS\n  Replicas = {r1,\n", 2, "unclosed {"),
    ("INVARIANT\n  TypeOk 3\n", 2, "expected an invariant name, got '3'"),
    ("PROPERTY\nINVARIANT TypeOk\n", 1, "PROPERTY names nothing"),
    ("SPECIFICATION Spec\nSPECIFICATION Fair\n", 2, "give one SPECIFICATION"),
    ("SPECIFICATION Spec Fair\n", 1, "give one SPECIFICATION"),
    ("SYMMETRY\nVIEW v\n", 1, "SYMMETRY names nothing"),
    ("VIEW v w\n", 1, "VIEW names one operator"),
])
def test_malformed_files_report_the_line(text, line, fragment):
    with pytest.raises(InputError) as e:
        parse_config(text, "bad.cfg")
    assert f"bad.cfg:{line}:" in str(e.value)
    assert fragment in str(e.value)


def test_symmetry_is_read_with_its_line():
    cfg = parse_config("CONSTANTS Replicas = {a, b}\nSYMMETRY Permutations(Replicas)\nSYMMETRY Perms\n", "m.cfg")
    assert cfg.symmetry == [("Permutations(Replicas)", 2), ("Perms", 3)]
    assert cfg.warnings == []


def test_specification_properties_and_view_are_read_with_their_lines():
    cfg = parse_config("SPECIFICATION FairSpec\nPROPERTIES Live\n  Progress\nVIEW view\nCONSTRAINT Bound\n", "m.cfg")
    assert (cfg.specification, cfg.properties, cfg.view) == ("FairSpec", ["Live", "Progress"], ("view", 4))
    assert cfg.warnings == []
    assert cfg.unused() == ["m.cfg:5: CONSTRAINT Bound is not used by modelcheck (it evaluates the spec's own "
                            "Init and Next)"]


def test_the_sections_a_tla_module_reads():
    cfg = parse_config("CONSTANTS\n  N = 3\n  Acc <- MCAcc\n  Q <- [Quorums] Maj\n  T = <<1, a>>\n"
                       "INIT Init\nNEXT Next\nCONSTRAINT Bound\nACTION_CONSTRAINT Step\n", "m.cfg")
    assert cfg.substitutions == {"Acc": ("MCAcc", 3, None), "Q[Quorums]": ("Maj", 4, "Quorums")}
    assert cfg.constants == {"N": "3", "T": "<<1,a>>"}
    assert (cfg.init, cfg.next) == (("Init", 6), ("Next", 7))
    assert cfg.constraints == [("Bound", 8)] and cfg.action_constraints == [("Step", 9)]
    assert cfg.words[:6] == ["CONSTANTS", "N", "Acc", "MCAcc", "Q", "Quorums"]


def test_substitutions_model_values_and_tla_values_are_read_in_order():
    cfg = parse_config("CONSTANTS\n  a1 = a1  a2 = a2\n  Acceptor <- MCAcceptor\n  Ballot <-[Voting] MCBallot\n"
                       "  None = None\n  Id = <<3, 1, 2>>  B = 0..2  R = [x |-> \"s\", y |-> {1, 2}]\n", "mc.cfg")
    assert cfg.substitutions == {"Acceptor": ("MCAcceptor", 3, None), "Ballot[Voting]": ("MCBallot", 4, "Voting")}
    assert cfg.model_values == {"a1": 2, "a2": 2, "None": 5}
    assert cfg.order == ["a1", "a2", "Acceptor", "Ballot", "None", "Id", "B", "R"]
    assert cfg.constants == {"Id": "<<3,1,2>>", "B": "0..2", "R": '[x |-> "s",y |-> {1,2}]'}
