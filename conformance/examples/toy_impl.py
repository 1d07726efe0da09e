"""A tiny Relax implementation speaking the conformance suite's subprocess protocol (FORMAT.md).

It stands in for an implementation written in another language: it does not import the suite's
package, only ``numpy`` and the standard library. It understands a very small subset -- one
``@R.function main`` whose parameters are fully static tensors and whose body binds
``R.add`` / ``R.subtract`` / ``R.multiply`` results (broadcasting, a ``bool`` operand, the dtype
aliases) and returns a variable or a tuple of variables -- and declares everything else unsupported,
so the runner reports those cases as skipped. It runs the whole suite with no unexpected result.

    relax-conformance run --impl cmd:"python conformance/examples/toy_impl.py"

Setting the environment variable ``TOY_BUG`` makes it deliberately wrong (the runner's own tests use
this): ``add_is_sub`` computes R.add as a subtraction; ``shape_kind`` reports a wrong dimension as
``dtype_mismatch``. ``TOY_VERSION`` is the version it states in its ``hello`` reply (none by default).
"""

import ast
import json
import os
import sys

import numpy as np

BUG = os.environ.get("TOY_BUG", "")
OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}
DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
          "float32", "float64"}
#: TVMScript's other spellings of dtypes (spec chapter 1)
ALIASES = {"float": "float32", "int": "int32", "double": "float64", "half": "float16", "uint1": "bool"}
if BUG == "add_is_sub":
    OPS["add"] = np.subtract


class Unsupported(Exception):
    pass


class Reject(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def _const(node):
    if not isinstance(node, ast.Constant):
        raise Unsupported("non-literal annotation")
    return node.value


def parse_param(arg):
    ann = arg.annotation
    if ann is None:
        raise Reject("parse", f"parameter {arg.arg} has no annotation")
    ok = (isinstance(ann, ast.Call) and isinstance(ann.func, ast.Attribute) and ann.func.attr == "Tensor"
          and len(ann.args) == 2 and isinstance(ann.args[0], ast.Tuple))
    if not ok:
        raise Unsupported("parameter annotations other than R.Tensor((dims...), dtype)")
    dims = tuple(_const(d) for d in ann.args[0].elts)
    if not all(isinstance(d, int) for d in dims):
        raise Unsupported("symbolic dimensions")
    dtype = _const(ann.args[1])
    if dtype == "":
        raise Unsupported("tensors of unknown dtype")
    dtype = ALIASES.get(dtype, dtype)
    if dtype not in DTYPES:
        raise Reject("parse", f"unknown dtype {dtype!r}")
    return arg.arg, dims, dtype


#: the other imports TEXT.MOD.1 reads as TVM's spellings of the vocabularies (not supported here)
OTHER_SPELLINGS = {"tvm.script.parser", "typing", "tvm"}


def check_imports(tree):
    """Imports are declarations (TEXT.MOD.1): the TVMScript vocabularies and ``import tvm``; TVM's other
    spellings of the vocabularies are unsupported here; any other import is a parse error."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "tvm.script":
            continue
        if isinstance(node, ast.Import) and [a.name for a in node.names] == ["tvm"]:
            continue
        if isinstance(node, ast.ImportFrom) and node.module in OTHER_SPELLINGS:
            raise Unsupported(f"the import spelling 'from {node.module} import ...'")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            raise Reject("parse", f"line {node.lineno}: only the TVMScript vocabularies may be imported")


def broadcast(op, da, db):
    """The broadcast shape of two static shapes (aligned at the right, equal or 1), or a rejection."""
    out = []
    for k in range(1, max(len(da), len(db)) + 1):
        p = da[-k] if k <= len(da) else 1
        q = db[-k] if k <= len(db) else 1
        if p != q and 1 not in (p, q):
            raise Reject("struct_info", f"R.{op}: shapes {da} and {db} do not broadcast")
        out.append(q if p == 1 else p)
    return tuple(reversed(out))


def result_dtype(op, ta, tb):
    """Equal dtypes, or a bool operand: the left operand's dtype (OP.add.C2 and its siblings)."""
    if ta != tb and "bool" not in (ta, tb):
        raise Reject("struct_info", f"R.{op}: dtypes {ta} and {tb} differ")
    return ta


def parse_module(text):
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        raise Reject("parse", f"line {err.lineno}: {err.msg}") from None
    check_imports(tree)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1:
        raise Reject("parse", "expected one @I.ir_module class")
    funcs = [n for n in classes[0].body if isinstance(n, ast.FunctionDef)]
    if len(funcs) != 1 or funcs[0].name != "main" or len(classes[0].body) != 1:
        raise Unsupported("modules with more than one function")
    fn = funcs[0]
    if len(fn.decorator_list) != 1 or not isinstance(fn.decorator_list[0], ast.Attribute):
        raise Unsupported("function options")
    params = [parse_param(a) for a in fn.args.args]
    ret = None
    if fn.returns is not None:
        ret = parse_param(ast.arg(arg="return", annotation=fn.returns))[1:]
    types = {name: (dims, dtype) for name, dims, dtype in params}  # static struct info of each variable
    steps, result = [], None
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            call = stmt.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in OPS and all(isinstance(a, ast.Name) for a in call.args)
                    and len(call.args) == 2 and not call.keywords):
                raise Unsupported("bindings other than R.add / R.subtract / R.multiply of variables")
            names = [a.id for a in call.args]
            for n in names:
                if n not in types:
                    raise Reject("parse", f"undefined variable {n}")
            (da, ta), (db, tb) = (types[n] for n in names)
            dtype = result_dtype(call.func.attr, ta, tb)
            types[stmt.targets[0].id] = (broadcast(call.func.attr, da, db), dtype)
            steps.append((stmt.targets[0].id, call.func.attr, names))
        elif isinstance(stmt, ast.Return) and result is None:
            v = stmt.value
            if isinstance(v, ast.Name):
                result = v.id
            elif isinstance(v, ast.Tuple) and all(isinstance(e, ast.Name) for e in v.elts):
                result = [e.id for e in v.elts]
            else:
                raise Unsupported("returning anything but variables")
            for n in result if isinstance(result, list) else [result]:
                if n not in types:
                    raise Reject("parse", f"undefined variable {n}")
        else:
            raise Unsupported(f"statement {type(stmt).__name__}")
    if result is None:
        raise Reject("parse", "no return")
    if ret is not None and (isinstance(result, list) or types[result] != ret):
        raise Unsupported("return annotations that differ from the returned value's struct info")
    return params, steps, result


def check_args(params, args):
    if len(args) != len(params):
        raise Reject("arity_mismatch", f"main takes {len(params)} arguments, got {len(args)}")
    for (name, dims, dtype), a in zip(params, args):
        if not isinstance(a, np.ndarray):
            raise Reject("type_mismatch", f"{name}: expected a tensor")
        if a.ndim != len(dims):
            raise Reject("ndim_mismatch", f"{name}: rank {a.ndim}, expected {len(dims)}")
        if str(a.dtype) != dtype:
            raise Reject("dtype_mismatch", f"{name}: dtype {a.dtype}, expected {dtype}")
        if a.shape != dims:
            raise Reject("dtype_mismatch" if BUG == "shape_kind" else "shape_mismatch",
                         f"{name}: shape {a.shape}, expected {dims}")


def decode(spec, arrays):
    kind = spec["kind"]
    if kind == "tensor":
        if "dtype" in spec:
            raise Unsupported(f"dtype {spec['dtype']}")
        return arrays[spec["key"]]
    if kind == "tuple":
        return tuple(decode(f, arrays) for f in spec["fields"])
    if kind in ("shape", "prim", "string", "null"):
        return (kind, spec.get("value"))  # never a valid argument of a supported function
    raise Unsupported(f"value kind {kind}")


def run(module, args):
    params, steps, result = module
    check_args(params, args)
    env = {name: a for (name, _, _), a in zip(params, args)}
    for target, op, operands in steps:
        a, b = (env[o] for o in operands)
        # computed in the matched dtype (a bool operand takes the other's), converted to the left's
        matched = b.dtype if a.dtype == np.bool_ else a.dtype
        with np.errstate(over="ignore"):
            env[target] = OPS[op](a.astype(matched), b.astype(matched)).astype(a.dtype)
    return [env[r] for r in result] if isinstance(result, list) else env[result]


def serve(inp, out):
    modules = {}
    for line in inp:
        if not line.strip():
            continue
        msg = json.loads(line)
        op = msg["op"]
        if op == "quit":
            break
        try:
            if op == "hello":
                reply = {"ok": True, "protocol": 1, "name": "toy-relax",
                         "unsupported_features": ["classic-spelling"]}
                if os.environ.get("TOY_VERSION"):
                    reply["version"] = os.environ["TOY_VERSION"]
            elif op == "load":
                key = f"m{len(modules)}"
                modules[key] = parse_module(msg["text"])
                reply = {"ok": True, "handle": key}
            elif op == "run":
                arrays = dict(np.load(msg["args_file"])) if msg.get("args_file") else {}
                value = run(modules[msg["handle"]], [decode(s, arrays) for s in msg["args"]])
                outs = value if isinstance(value, list) else [value]
                np.savez(msg["out_file"], **{f"r{i}": v for i, v in enumerate(outs)})
                if isinstance(value, list):
                    fields = [{"kind": "tensor", "key": f"r{i}"} for i in range(len(outs))]
                    spec = {"kind": "tuple", "fields": fields}
                else:
                    spec = {"kind": "tensor", "key": "r0"}
                reply = {"ok": True, "result": spec}
            elif op == "release":
                modules.pop(msg["handle"], None)
                reply = {"ok": True}
            else:
                reply = {"ok": False, "error": {"kind": "unclassified", "message": f"unknown op {op}"}}
        except Unsupported as u:
            reply = {"ok": False, "unsupported": {"feature": str(u), "message": ""}}
        except Reject as r:
            reply = {"ok": False, "error": {"kind": r.kind, "message": str(r),
                                            **({"site": "param"} if r.kind.endswith("_mismatch") else {})}}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
