"""JSON Schemas of case format v1: ``meta.json`` and the subprocess protocol's messages.

The schemas are built here from the format's vocabularies (:mod:`relax_conformance.vocab`), written
to ``conformance/schemas/`` (``meta.schema.json``, ``protocol.schema.json``; shipped in the wheel,
``relax_ref.resources.data_path("schemas")``) and checked for being current by the tests:

    python -m relax_conformance.schema --write     # rewrite the files
    python -m relax_conformance.schema --check     # exit 1 when they are stale

An implementation in any language validates its replies, or a case it reads, with any JSON Schema
(2020-12) validator. The runner validates with :func:`validate`, a validator of the subset of JSON
Schema these schemas use (``type``, ``enum``, ``const``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``minItems``, ``oneOf``, ``anyOf``, ``allOf``, ``if``/``then``,
``minimum``, ``pattern``, ``$ref`` to ``#/$defs/...``); it needs no package beyond the standard
library. Rules that a schema cannot state (an error kind that belongs to another expectation, npz
members that must exist) stay in :mod:`relax_conformance.case`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import vocab

DIALECT = "https://json-schema.org/draft/2020-12/schema"
NAMES = ("meta", "protocol")

#: keys of meta.json and of one run (FORMAT.md section 3)
META_KEYS = ("format_version", "description", "entry", "expect", "error_kind", "args", "outputs", "runs",
             "rtol", "atol", "spec", "tags", "oracle", "spelling", "requires", "generator")
META_REQUIRED = ("format_version", "entry", "expect", "runs", "spec", "tags", "oracle")
RUN_KEYS = ("inputs", "expected", "expect", "error_kind", "rtol", "atol", "args", "outputs", "note")
SPELLINGS = ("tvm", "classic")


def _obj(props: Dict[str, Any], required=(), extra: bool = False, **more) -> Dict[str, Any]:
    out = {"type": "object", "properties": props, "required": list(required), "additionalProperties": extra}
    out.update(more)
    return out


def _value_defs(inline: bool) -> Dict[str, Any]:
    """The value specs of FORMAT.md section 4; ``inline``: the protocol's inline shapes and prims."""
    key = {"type": "string", "minLength": 1}
    kinds: List[Dict[str, Any]] = [
        _obj({"kind": {"const": "tensor"}, "key": key, "dtype": {"type": "string"}}, ("kind", "key")),
        _obj({"kind": {"const": "shape"}, "key": key}, ("kind", "key")),
        _obj({"kind": {"const": "prim"}, "key": key}, ("kind", "key")),
        _obj({"kind": {"const": "tuple"}, "fields": {"type": "array", "items": {"$ref": "#/$defs/value"}}},
             ("kind", "fields")),
        _obj({"kind": {"const": "string"}, "value": {"type": "string"}}, ("kind", "value")),
        _obj({"kind": {"const": "null"}}, ("kind",)),
    ]
    if inline:
        kinds.append(_obj({"kind": {"const": "shape"}, "value": {"type": "array", "items": {"type": "integer",
                                                                                            "minimum": 0}}},
                          ("kind", "value")))
        kinds.append(_obj({"kind": {"const": "prim"}, "value": {"type": ["number", "boolean"]},
                           "dtype": {"type": ["string", "null"]}}, ("kind", "value")))
    return {"value": {"description": "a value spec (FORMAT.md section 4)", "oneOf": kinds}}


def _error_kind(kinds) -> Dict[str, Any]:
    return {"enum": list(kinds) + [None]}


def meta_schema() -> Dict[str, Any]:
    """The schema of ``meta.json`` (FORMAT.md section 3)."""
    tol = {"type": "number", "minimum": 0}
    values = {"type": "array", "items": {"$ref": "#/$defs/value"}}
    run = _obj({
        "inputs": {"type": "string", "minLength": 1},
        "expected": {"type": ["string", "null"]},
        "expect": {"enum": ["return", "runtime_error"]},
        "error_kind": _error_kind(vocab.EXPECTABLE_KINDS),
        "rtol": tol, "atol": tol,
        "args": values, "outputs": {"$ref": "#/$defs/value"},
        "note": {"type": "string"},
    }, ("inputs", "expected"))
    props = {
        "format_version": {"const": vocab.FORMAT_VERSION},
        "description": {"type": "string"},
        "entry": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"},
        "expect": {"enum": list(vocab.EXPECTS)},
        "error_kind": _error_kind(vocab.EXPECTABLE_KINDS),
        "args": values,
        "outputs": {"$ref": "#/$defs/value"},
        "runs": {"type": "array", "items": {"$ref": "#/$defs/run"}},
        "rtol": tol, "atol": tol,
        "spec": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
        "oracle": {"enum": list(vocab.ORACLES)},
        "spelling": {"enum": list(SPELLINGS)},
        "requires": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "generator": {"type": "string"},
    }
    assert tuple(props) == META_KEYS
    load_time = {"properties": {"expect": {"enum": list(vocab.LOAD_EXPECTS)}}, "required": ["expect"]}
    schema = _obj(props, META_REQUIRED, allOf=[
        {"if": load_time, "then": {"properties": {"runs": {"maxItems": 0}}},
         "else": {"properties": {"runs": {"minItems": 1}, "error_kind": {"not": {"enum": ["parse", "well_formed",
                                                                                            "struct_info"]}}}}},
        {"if": {"properties": {"expect": {"const": "return"}}, "required": ["expect"]},
         "then": {"properties": {"error_kind": {"const": None}}}},
    ])
    schema.update({"$schema": DIALECT, "$id": "relax-conformance/meta.schema.json",
                   "title": "meta.json of a Relax conformance case (format v1)",
                   "$defs": {**_value_defs(False), "run": run}})
    return schema


def protocol_schema() -> Dict[str, Any]:
    """The schema of one line of the subprocess protocol (FORMAT.md section 13): a request of the
    runner (``#/$defs/request``) or a reply of the implementation (``#/$defs/reply``)."""
    error = _obj({"kind": {"enum": list(vocab.ALL_REPORTABLE_KINDS)}, "message": {"type": "string"},
                  "site": {"enum": list(vocab.SITES) + [None]}}, ("kind",))
    failed = {"ok": {"const": False}}
    requests = [
        _obj({"op": {"const": "hello"}, "protocol": {"const": 1}}, ("op", "protocol")),
        _obj({"op": {"const": "load"}, "case": {"type": "string"}, "path": {"type": "string"},
              "text": {"type": "string"}, "entry": {"type": "string"}, "spelling": {"enum": list(SPELLINGS)},
              "tags": {"type": "array", "items": {"type": "string"}},
              "requires": {"type": "array", "items": {"type": "string"}}}, ("op", "text", "entry")),
        _obj({"op": {"const": "run"}, "handle": {"type": "string"}, "entry": {"type": "string"},
              "args": {"type": "array", "items": {"$ref": "#/$defs/value"}}, "args_file": {"type": "string"},
              "out_file": {"type": "string"}}, ("op", "handle", "entry", "args", "args_file", "out_file")),
        _obj({"op": {"const": "release"}, "handle": {"type": "string"}}, ("op", "handle")),
        _obj({"op": {"const": "quit"}}, ("op",)),
    ]
    replies = [
        _obj({"ok": {"const": True}, "protocol": {"const": 1}, "name": {"type": "string"},
              "unsupported_features": {"type": "array", "items": {"type": "string"}}}, ("ok", "protocol")),
        _obj({"ok": {"const": True}, "handle": {"type": "string"}}, ("ok", "handle")),
        _obj({"ok": {"const": True}, "result": {"$ref": "#/$defs/value"}}, ("ok", "result")),
        _obj({"ok": {"const": True}}, ("ok",)),
        _obj({**failed, "error": error}, ("ok", "error")),
        _obj({**failed, "unsupported": _obj({"feature": {"type": "string"}, "message": {"type": "string"}},
                                            ("feature",))}, ("ok", "unsupported")),
        _obj({**failed, "internal": {"type": "string"}}, ("ok", "internal")),
    ]
    return {"$schema": DIALECT, "$id": "relax-conformance/protocol.schema.json",
            "title": "one JSON line of the Relax conformance subprocess protocol (version 1)",
            "oneOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/reply"}],
            "$defs": {**_value_defs(True), "request": {"oneOf": requests}, "reply": {"oneOf": replies}}}


SCHEMAS = {"meta": meta_schema, "protocol": protocol_schema}


# ---------------------------------------------------------------------------------------------------
# Validation (the subset of JSON Schema 2020-12 used above)
# ---------------------------------------------------------------------------------------------------

_TYPES = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "null": lambda v: v is None,
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == True`` in Python, not in JSON."""
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                             and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def validate(instance: Any, schema: Dict[str, Any], *, root: Optional[Dict[str, Any]] = None,
             where: str = "$") -> List[str]:
    """The problems of ``instance`` under ``schema`` (empty when it is valid), each as
    ``"$.path: problem"``."""
    root = schema if root is None else root
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"unsupported $ref {ref!r}")
        return validate(instance, root["$defs"][ref[len("#/$defs/"):]], root=root, where=where)
    errs: List[str] = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](instance) for t in types):
            return [f"{where}: expected {' or '.join(types)}, got {json.dumps(instance)[:60]}"]
    if "const" in schema and not _same(instance, schema["const"]):
        errs.append(f"{where}: must be {json.dumps(schema['const'])}")
    if "enum" in schema and not any(_same(instance, e) for e in schema["enum"]):
        errs.append(f"{where}: {json.dumps(instance)[:60]} is not one of {json.dumps(schema['enum'])}")
    if isinstance(instance, (int, float)) and "minimum" in schema and instance < schema["minimum"]:
        errs.append(f"{where}: must be >= {schema['minimum']}")
    if isinstance(instance, str):
        if "minLength" in schema and len(instance) < schema["minLength"]:
            errs.append(f"{where}: must not be empty")
        if "pattern" in schema and not re.search(schema["pattern"], instance):
            errs.append(f"{where}: {instance!r} does not match {schema['pattern']}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errs.append(f"{where}: needs at least {schema['minItems']} item(s)")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            errs.append(f"{where}: allows at most {schema['maxItems']} item(s)")
        if "items" in schema:
            for i, x in enumerate(instance):
                errs += validate(x, schema["items"], root=root, where=f"{where}[{i}]")
    if isinstance(instance, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", ()):
            if k not in instance:
                errs.append(f"{where}: missing key {k!r}")
        for k, v in instance.items():
            if k in props:
                errs += validate(v, props[k], root=root, where=f"{where}.{k}")
            elif schema.get("additionalProperties", True) is False:
                errs.append(f"{where}: unknown key {k!r}")
    errs += _combinators(instance, schema, root, where)
    return errs


def _combinators(instance: Any, schema: Dict[str, Any], root: Dict[str, Any], where: str) -> List[str]:
    errs: List[str] = []
    for sub in schema.get("allOf", ()):
        errs += validate(instance, sub, root=root, where=where)
    if "anyOf" in schema and all(validate(instance, s, root=root, where=where) for s in schema["anyOf"]):
        errs.append(f"{where}: matches none of the allowed forms")
    if "oneOf" in schema:
        results = [validate(instance, s, root=root, where=where) for s in schema["oneOf"]]
        ok = sum(1 for r in results if not r)
        if ok != 1:
            best = min(results, key=len) if ok == 0 else []
            errs.append(f"{where}: matches {ok} of the {len(results)} allowed forms"
                        + (f" (closest: {best[0]})" if best else ""))
    if "not" in schema and not validate(instance, schema["not"], root=root, where=where):
        errs.append(f"{where}: is a value that is not allowed here")
    if "if" in schema:
        branch = "then" if not validate(instance, schema["if"], root=root, where=where) else "else"
        if branch in schema:
            errs += validate(instance, schema[branch], root=root, where=where)
    return errs


# ---------------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------------

def text(name: str) -> str:
    """The JSON text of schema ``name`` (``meta`` or ``protocol``) as written to its file."""
    return json.dumps(SCHEMAS[name](), indent=1) + "\n"


def path(name: str) -> Path:
    """The shipped file of schema ``name`` (package data of a wheel, ``conformance/schemas`` in a
    checkout)."""
    from relax_ref.resources import data_path

    return data_path("schemas") / f"{name}.schema.json"


def load(name: str) -> Dict[str, Any]:
    """Schema ``name`` as shipped."""
    return json.loads(path(name).read_text(encoding="utf-8"))


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    from relax_ref.resources import source_path

    ap = argparse.ArgumentParser(prog="python -m relax_conformance.schema", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write conformance/schemas/*.schema.json")
    ap.add_argument("--check", action="store_true", help="exit 1 when a schema file is stale")
    a = ap.parse_args(argv)
    target = source_path("schemas")
    stale = [n for n in NAMES if not (target / f"{n}.schema.json").is_file()
             or (target / f"{n}.schema.json").read_text(encoding="utf-8") != text(n)]
    if a.write:
        target.mkdir(parents=True, exist_ok=True)
        for n in stale:
            (target / f"{n}.schema.json").write_text(text(n), encoding="utf-8")
            print(f"wrote {target / f'{n}.schema.json'}")
        return 0
    if stale:
        print(f"stale: {', '.join(f'{n}.schema.json' for n in stale)}; run python -m relax_conformance.schema --write")
        return 1 if a.check else 0
    print("schemas are current")
    return 0


__all__ = ["meta_schema", "protocol_schema", "validate", "text", "path", "load", "NAMES", "SCHEMAS"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

