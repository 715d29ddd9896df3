"""Finding specs: by name, from a Python file, or from an installed package.

A command's SPEC argument is either

* the path of a Python file (``my_spec.py``, or any argument naming an
  existing ``.py`` file or containing a ``/``): the file is read and run as a
  module of its own, and its ``SPEC`` (a ``SpecDefinition``) is the spec;
  a file holding several gives them as ``SPECS`` and is named
  ``file.py:name``. The file's directory goes first on ``sys.path`` while
  it runs (as ``python file.py`` would have it), so a spec may import the
  modules beside it;
* the path of a TLA+ module (``Spec.tla``), compiled with its .cfg by the
  TLA+ front-end (``modelcheck.loading.tla``);
* or the name of a spec some installed package offers through the entry
  point group ``modelcheck.specs`` (``name = package.module:SPEC``). The
  built-in specs are offered the same way, by modelcheck itself (its
  setup.cfg); ``modelcheck.specs.BUILT_IN`` lists the same entries for a
  checkout that is not installed, and for Spark executors.

Each spec loaded carries its ``SpecSource`` (``SpecDefinition.loaded_from``):
what a trace records so that ``show`` and ``replay`` find the spec again, and
what ``Model.key`` names so that a Spark executor loads the same one
(``load_model``). Nothing is loaded from a place another user can write: a
spec file and the directories above it must belong to the user (or root),
and none be writable by anyone else (a directory with the sticky bit, as
/tmp, excepted).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from dataclasses import dataclass, replace
from importlib import import_module
from typing import Any

from modelcheck.errors import InputError, SpecDefinitionError, no_such
from modelcheck.loading.tla import tla_spec
from modelcheck.model.spec import Model, SpecDefinition, spec_location
from modelcheck.runtime.private import replaceable_by_others
from modelcheck.runtime.reading import MiB, read_bytes

GROUP = "modelcheck.specs"
SPEC_FILE_CAP = 16 * MiB


@dataclass(frozen=True)
class SpecSource:
    """Where a spec was found: an entry point's ``module:attribute``, or a
    file (its absolute path, the SHA-256 of its text, and the name in it
    when it holds several)."""

    kind: str  # "entry point" or "file"
    target: str
    digest: str = ""
    name: str = ""  # for a file of several specs, which one
    provider: str = ""  # the distribution offering an entry point
    # how the file was read, for a loader that takes options (a TLA+ module's
    # .cfg and --const overrides): sorted (option, value) pairs
    options: tuple = ()

    def ref(self) -> str:
        """A string another process loads the same spec from (``load_model``)."""
        if self.kind == "file":
            ref = f"file:{self.target}#{self.digest}" + (f":{self.name}" if self.name else "")
            return ref + ("\t" + json.dumps(dict(self.options), sort_keys=True) if self.options else "")
        return self.target

    def describe(self) -> str:
        if self.kind == "file":
            return f"from {_shown(self.target)}"
        return ""

    def to_json(self) -> dict[str, str]:
        """What a trace records of it."""
        if self.kind == "file":
            out = {"file": self.target, "sha256": self.digest}
            if self.name:
                out["name"] = self.name
            out.update(dict(self.options))
            return out
        return {"entry_point": self.target}


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


# --- what is installed ------------------------------------------------------------------------

@dataclass(frozen=True)
class Offer:
    name: str
    target: str  # "module:attribute"
    provider: str


def offers() -> dict[str, list[Offer]]:
    """Every spec name offered, with its offers: the entry points of the
    group (the built-in specs among them, once modelcheck is installed),
    then the built-in table for those the installed metadata lacks."""
    found: dict[str, list[Offer]] = {}
    try:
        from importlib.metadata import entry_points
        points = entry_points(group=GROUP)
    except Exception:  # broken metadata of some other package: the built-ins still work
        points = []
    for ep in points:
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        offer = Offer(ep.name, ep.value.replace(" ", ""), dist)
        if all(o.target != offer.target for o in found.get(ep.name, [])):
            found.setdefault(ep.name, []).append(offer)
    from modelcheck.specs import BUILT_IN
    built_in = []
    for line in BUILT_IN:
        name, target = (part.strip() for part in line.split("=", 1))
        built_in.append(name)
        if all(o.target != target for o in found.get(name, [])):
            found.setdefault(name, []).append(Offer(name, target, "modelcheck"))
    # the built-in specs in their own order, then the others by name
    return {name: found[name] for name in built_in + sorted(set(found) - set(built_in))}


def _load_target(target: str, what: str) -> Any:
    module_name, _, attribute = target.partition(":")
    try:
        module = import_module(module_name)
    except ImportError as e:
        raise InputError(f"{what}: cannot import {module_name} ({e})") from None
    except SpecDefinitionError:
        raise
    except Exception as e:
        where = spec_location(e.__traceback__)
        raise SpecDefinitionError(f"{what}: importing {module_name} failed: {type(e).__name__}: {e}"
                                  + (f" ({where})" if where else "")) from None
    value: Any = module
    for part in (attribute or "SPEC").split("."):
        if not hasattr(value, part):
            raise InputError(f"{what}: {module_name} has no {attribute or 'SPEC'}")
        value = getattr(value, part)
    return value


def by_name(name: str) -> SpecDefinition:
    """The spec an installed package (or modelcheck itself) offers as ``name``."""
    found = offers()
    if name not in found:
        said = no_such("unknown spec", name, sorted(found), "known specs")
        raise InputError(said[:-1] + "; or give the path of a spec file, such as my_spec.py)")
    choices = found[name]
    if len(choices) > 1:
        listed = "; ".join(f"{o.provider or '?'}: {o.target}" for o in choices)
        raise InputError(f"spec name {name!r} is offered by more than one package ({listed}); uninstall one")
    offer = choices[0]
    spec = _load_target(offer.target, f"spec {name}")
    if not isinstance(spec, SpecDefinition):
        raise InputError(f"spec {name}: {offer.target} is not a SpecDefinition")
    if spec.name != name:
        raise InputError(f"spec {name}: {offer.target} is a spec named {spec.name!r}; the entry point must carry "
                         f"the spec's own name")
    return replace(spec, loaded_from=SpecSource("entry point", offer.target, provider=offer.provider))


def all_registered() -> dict[str, SpecDefinition]:
    """Every spec offered by name (``modelcheck list``)."""
    return {name: by_name(name) for name in offers()}


# --- spec files ----------------------------------------------------------------------------------

def looks_like_path(text: str) -> bool:
    """Whether a SPEC argument names a file rather than a registered spec."""
    path = text.rsplit(":", 1)[0] if text.count(":") == 1 and not os.path.exists(text) else text
    return path.endswith((".py", ".tla")) or os.sep in path or "/" in path or os.path.isfile(path)


def _split_name(text: str) -> tuple[str, str]:
    """``file.py:name`` -> (file.py, name); a plain path -> (path, "")."""
    if not os.path.exists(text) and text.count(":") == 1:
        path, name = text.split(":")
        if path.endswith(".py"):
            return path, name
    return text, ""


def read_spec_file(path: str, expected_digest: str | None = None) -> tuple[bytes, str]:
    """The text of a spec file and its absolute path, refused (one line) if
    it is no regular file, or if it or its directory is another user's or
    writable by others. With ``expected_digest`` (another process of the
    same run, such as a Spark executor, loading the file the run was started
    with), the text must have that SHA-256, which vouches for it instead."""
    absolute = os.path.abspath(path)
    if not os.path.exists(absolute):
        if expected_digest:
            raise InputError(f"spec file {path} is not on this machine: a Spark executor on another machine "
                             f"needs it at the same path (a shared filesystem)")
        raise InputError(f"spec file {path} does not exist")
    try:
        data = read_bytes(absolute, "spec file", SPEC_FILE_CAP)
    except OSError as e:
        raise InputError(f"cannot read spec file {path}: {e.strerror or e}") from None
    if expected_digest:
        if hashlib.sha256(data).hexdigest() != expected_digest:
            raise InputError(f"spec file {path} has changed since this run started (its text is not the one "
                             f"the run checks)")
        return data, os.path.realpath(absolute)
    problem = replaceable_by_others(absolute)
    if problem is not None:
        raise InputError(f"spec file {path} {problem}: modelcheck runs only code no other user can change "
                         f"(chmod go-w, or move it to a directory of yours)")
    return data, os.path.realpath(absolute)


_FILE_MODULES: dict[tuple[str, str], types.ModuleType] = {}


def python_spec(path: str, absolute: str, data: bytes, digest: str, name: str) -> SpecDefinition:
    """The spec a Python file defines (``SPEC``, or one of ``SPECS``, named
    ``name``); the file runs once per text."""
    module = _FILE_MODULES.get((absolute, digest))
    if module is None:
        module = _run_spec_file(path, absolute, data, digest)
        _FILE_MODULES[(absolute, digest)] = module
    return _chosen(module, path, name)


# How a spec file is read, by its extension: (path as given, absolute path,
# text, SHA-256, the name after "file:") -> SpecDefinition. Any other
# extension is read as Python; a front-end for another language adds its own.
# A loader may take options as keywords (a TLA+ module: ``config``, ``consts``).
FILE_LOADERS: dict[str, Any] = {".py": python_spec, ".tla": tla_spec}


def load_file(text: str, expected_digest: str | None = None, **options: Any) -> SpecDefinition:
    """The spec a file defines (``FILE_LOADERS``; a Python file's ``SPEC``,
    or one of its ``SPECS`` named ``file.py:name``; a TLA+ module compiled
    with ``options``), with its source recorded."""
    path, name = _split_name(text)
    data, absolute = read_spec_file(path, expected_digest)
    digest = hashlib.sha256(data).hexdigest()
    loader = FILE_LOADERS.get(os.path.splitext(absolute)[1], python_spec)
    options = {k: v for k, v in options.items() if v}
    spec = loader(path, absolute, data, digest, name, **options)
    recorded = tuple(sorted((k, os.path.abspath(v) if k == "config" else tuple(v)) for k, v in options.items()))
    return replace(spec, loaded_from=SpecSource("file", absolute, digest, name, options=recorded))


def _run_spec_file(path: str, absolute: str, data: bytes, digest: str) -> types.ModuleType:
    stem = os.path.splitext(os.path.basename(absolute))[0]
    module_name = f"modelcheck_spec_{''.join(ch if ch.isalnum() else '_' for ch in stem)}_{digest[:12]}"
    try:
        code = compile(data, absolute, "exec")
    except SyntaxError as e:
        raise SpecDefinitionError(f"spec file {path}:{e.lineno}: {e.msg}") from None
    except ValueError as e:  # a NUL byte, say
        raise SpecDefinitionError(f"spec file {path}: not Python source ({e})") from None
    module = types.ModuleType(module_name)
    module.__file__ = absolute
    sys.modules[module_name] = module  # dataclasses and pickling look a module up by name
    directory = os.path.dirname(absolute)
    if directory not in sys.path:
        sys.path.insert(0, directory)  # its own modules beside it, as `python file.py` would find them
    try:
        exec(code, module.__dict__)
    except (SpecDefinitionError, InputError) as e:
        del sys.modules[module_name]
        where = spec_location(e.__traceback__)
        message = str(e)
        if where and where not in message:
            message += f" ({where})"
        raise SpecDefinitionError(f"spec file {path}: {message}") from None
    except Exception as e:
        del sys.modules[module_name]
        where = spec_location(e.__traceback__) or path
        raise SpecDefinitionError(f"spec file {path}: {type(e).__name__}: {e} ({where})") from None
    return module


def _chosen(module: types.ModuleType, path: str, name: str) -> SpecDefinition:
    specs: list[SpecDefinition] = []
    if isinstance(getattr(module, "SPEC", None), SpecDefinition):
        specs.append(module.SPEC)
    specs += [s for s in getattr(module, "SPECS", ()) if isinstance(s, SpecDefinition) and s not in specs]
    if not specs:
        raise InputError(f"spec file {path} defines no SPEC (a modelcheck.model.spec.SpecDefinition); "
                         f"end it with SPEC = SpecDefinition(...)")
    if name:
        for s in specs:
            if s.name == name:
                return s
        raise InputError(f"spec file {path} has no spec named {name!r} (it has {', '.join(s.name for s in specs)})")
    if len(specs) > 1:
        raise InputError(f"spec file {path} holds several specs ({', '.join(s.name for s in specs)}); "
                         f"name one: {path}:{specs[0].name}")
    return specs[0]


# --- one entry for every command -------------------------------------------------------------

def find_spec(text: str) -> SpecDefinition:
    """A command's SPEC: a spec file's path, or a registered name."""
    if not text.strip():
        raise InputError("SPEC needs a name or the path of a spec file")
    if looks_like_path(text):
        return load_file(text)
    return by_name(text)


def from_source(source: dict, fallback: str | None) -> SpecDefinition | None:
    """The spec a trace records (``SpecSource.to_json``); None when the
    record names none. A file that is gone is an error naming it."""
    if not isinstance(source, dict):
        return None
    path = source.get("file")
    if isinstance(path, str):
        if not os.path.exists(path):
            raise InputError(f"the trace's spec file {path} no longer exists; give the spec with --spec PATH")
        name = source.get("name") if isinstance(source.get("name"), str) else ""
        options = {k: source[k] for k in ("config", "consts") if source.get(k)}
        return load_file(f"{path}:{name}" if name else path, **options)
    target = source.get("entry_point")
    if isinstance(target, str) and fallback:
        return by_name(fallback)
    return None


def by_ref(ref: str) -> SpecDefinition:
    """The spec a ``SpecDefinition.ref()`` names: a file (checked to be the
    same text), an entry point's ``module:attribute``, or a name."""
    if ref.startswith("file:"):
        rest, _, options = ref[len("file:"):].partition("\t")
        path, _, tail = rest.partition("#")
        digest, _, name = tail.partition(":")
        spec = load_file(f"{path}:{name}" if name else path, expected_digest=digest,
                         **(json.loads(options) if options else {}))
        return spec
    if ":" in ref:
        spec = _load_target(ref, f"spec {ref}")
        return replace(spec, loaded_from=SpecSource("entry point", ref))
    return by_name(ref)


_LOADED: dict[tuple, Model] = {}


def load_model(key: tuple) -> Model:
    """The model named by ``Model.key()``, built once per process (Spark
    executors rebuild the driver's model this way)."""
    model = _LOADED.get(key)
    if model is None:
        ref, items = key[:2]
        spec = by_ref(ref)
        model = spec.instantiate(spec.resolve_constants(parsed=dict(items)), view="view" in key[2:])
        _LOADED[key] = model
    return model
