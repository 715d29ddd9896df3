import os
import subprocess
import sys
import zipfile

from modelcheck.spark.shipping import build_code_zip


def test_code_zip_holds_the_packages_the_driver_runs(tmp_path):
    path = build_code_zip(str(tmp_path))
    names = zipfile.ZipFile(path).namelist()
    for module in ("modelcheck/__init__.py", "modelcheck/spark/blocks.py", "modelcheck/specs/kip320.py"):
        assert module in names and module + "c" in names
    assert not any("__pycache__" in n for n in names)
    assert build_code_zip(str(tmp_path)) == path  # same code, same name


def test_executors_import_the_zip_even_beside_another_checkout(tmp_path):
    """What a Python worker does: the zip on sys.path, started in a directory
    that holds a different modelcheck package."""
    path = build_code_zip(str(tmp_path))
    decoy = tmp_path / "checkout" / "modelcheck"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise ImportError('the decoy was imported')\n")
    env = dict(os.environ, PYTHONSAFEPATH="1")
    env.pop("PYTHONPATH", None)
    code = (f"import sys; sys.path.insert(1, {path!r}); import modelcheck.spark.blocks as b; "
            f"print(b.__file__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=str(decoy.parent), env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(os.path.join(path, "modelcheck", "spark", "blocks.py"))


def test_a_zip_under_the_name_is_used_only_if_it_holds_these_sources(tmp_path):
    path = build_code_zip(str(tmp_path))
    whole = open(path, "rb").read()
    with zipfile.ZipFile(path, "w") as z:  # another zip under the name: other code
        z.writestr("modelcheck/__init__.py", "raise SystemExit('planted')\n")
    assert build_code_zip(str(tmp_path)) == path
    assert "modelcheck/spark/blocks.py" in zipfile.ZipFile(path).namelist()
    with open(path, "r+b") as f:  # cut short
        f.truncate(len(whole) // 2)
    assert build_code_zip(str(tmp_path)) == path and zipfile.ZipFile(path).testzip() is None


def test_the_lasting_directory_is_never_one_another_user_made(tmp_path, monkeypatch):
    import tempfile
    from modelcheck.spark.shipping import lasting_code_dir
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    taken = tmp_path / f"modelcheck-code-{os.geteuid()}"
    taken.mkdir()
    taken.chmod(0o777)  # made first, and left open, by someone else
    found = lasting_code_dir()
    assert found != str(taken) and os.stat(found).st_mode & 0o777 == 0o700
