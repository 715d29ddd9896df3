"""Finding specs: by name (the entry point group the built-in specs are
offered in), from a Python file (read once, checked, recorded), and again
from the reference a model's key carries."""

import configparser
import os
import subprocess
import sys

import pytest

from support import EXAMPLES, ROOT
from modelcheck.errors import InputError, SpecDefinitionError
from modelcheck.loading import registry
from modelcheck.specs import BUILT_IN

TWO_PHASE = EXAMPLES["two-phase"]


def test_setup_cfg_offers_the_built_in_specs_as_the_registry_lists_them():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    offered = [line.strip() for line in cfg["options.entry_points"]["modelcheck.specs"].strip().splitlines()]
    assert offered == list(BUILT_IN)


def test_a_name_finds_the_spec_its_entry_point_offers():
    spec = registry.find_spec("kip320")
    assert spec.name == "kip320" and spec.loaded_from.target == "modelcheck.specs.kip320:SPEC"
    assert spec.ref() == "modelcheck.specs.kip320:SPEC"
    with pytest.raises(InputError, match="unknown spec 'kip3200'.*or give the path of a spec file"):
        registry.find_spec("kip3200")


def test_a_file_is_loaded_once_and_its_source_recorded():
    spec = registry.find_spec(TWO_PHASE)
    source = spec.loaded_from
    assert (source.kind, source.target, len(source.digest)) == ("file", os.path.realpath(TWO_PHASE), 64)
    assert spec.ref() == f"file:{source.target}#{source.digest}"
    assert registry.find_spec(TWO_PHASE).init is spec.init  # the same module, not run twice
    assert source.to_json() == {"file": source.target, "sha256": source.digest}


def write(path, text, mode=0o644):
    path.write_text(text)
    os.chmod(path, mode)
    return str(path)


MINIMAL = '''
from modelcheck.language.schema import integer
from modelcheck.model.spec import SpecDefinition, action, invariant

def fields(c):
    return [integer("x", 0, 3)]

def Init(s, n):
    n.x = 0

@action()
def Inc(s, n):
    n.require(s.x < 3)
    n.x = s.x + 1

@invariant
def Small(s):
    return s.x <= 3

SPEC = SpecDefinition(name="{name}", fields=fields, init=Init, next=(Inc,), invariants=(Small,))
'''


def test_a_spec_file_may_hold_several_specs_named_after_the_path(tmp_path):
    path = write(tmp_path / "two.py", MINIMAL.format(name="one") + "\nSPECS = (SPEC, SPEC.__class__(name='two', "
                 "fields=fields, init=Init, next=(Inc,)))\n")
    with pytest.raises(InputError, match=r"holds several specs \(one, two\); name one: .*two.py:one"):
        registry.find_spec(path)
    assert registry.find_spec(f"{path}:two").name == "two"
    assert registry.find_spec(f"{path}:two").loaded_from.name == "two"


@pytest.mark.parametrize("text, message", [
    ("x = (\n", r"spec file .*bad.py:1: '\(' was never closed"),
    ("import no_such_module_anywhere\n", r"spec file .*bad.py: ModuleNotFoundError: No module named "
                                          r"'no_such_module_anywhere' \(.*bad.py:1\)"),
    ("SPEC = 3\n", r"defines no SPEC"),
    ("\n\nraise ValueError('oops')\n", r"spec file .*bad.py: ValueError: oops \(.*bad.py:3\)"),
])
def test_a_broken_spec_file_is_one_line(tmp_path, text, message):
    path = write(tmp_path / "bad.py", text)
    with pytest.raises((InputError, SpecDefinitionError), match=message):
        registry.find_spec(path)


def test_a_file_others_can_write_is_not_loaded(tmp_path):
    path = write(tmp_path / "open.py", MINIMAL.format(name="open"), 0o666)
    with pytest.raises(InputError, match="open.py can be written by other users: modelcheck runs only code no "
                                         "other user can change .chmod go-w"):
        registry.find_spec(path)
    os.chmod(path, 0o644)
    os.chmod(tmp_path, 0o777)
    try:
        with pytest.raises(InputError, match=f"open.py lies in {tmp_path}, which other users can write to"):
            registry.find_spec(path)
    finally:
        os.chmod(tmp_path, 0o755)
    assert registry.find_spec(path).name == "open"


def test_a_key_finds_the_same_model_and_refuses_another_text(tmp_path):
    path = tmp_path / "k.py"
    write(path, MINIMAL.format(name="k"))
    spec = registry.find_spec(str(path))
    m = spec.instantiate(spec.resolve_constants())
    again = registry.load_model(m.key())
    assert again.init_states == m.init_states and again.spec.name == "k"
    write(path, MINIMAL.format(name="k") + "\n# changed\n")
    registry._LOADED.clear()
    with pytest.raises(InputError, match="has changed since this run started"):
        registry.load_model(m.key())


def test_an_installed_package_offers_specs_through_the_entry_point_group(tmp_path):
    """A real distribution on the path (dist-info with entry_points.txt), in a fresh process."""
    (tmp_path / "myspecs.py").write_text(MINIMAL.format(name="counter"))
    info = tmp_path / "myspecs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myspecs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[modelcheck.specs]\ncounter = myspecs:SPEC\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + ROOT)
    listed = subprocess.run([sys.executable, "-c", "from cli import main; main()", "list"], env=env,
                            capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert listed.returncode == 0 and "\ncounter  (TLA+ module counter)" in listed.stdout, listed.stderr
    ran = subprocess.run([sys.executable, "-c", "from cli import main; main()", "run", "counter", "--json", "-q"],
                         env=env, capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert ran.returncode == 0 and '"distinct_states": 4' in ran.stdout, ran.stderr
