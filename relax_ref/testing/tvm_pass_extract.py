"""Extract (input module, passes, expected module) triples from pass tests written against TVM, with
Python's :mod:`ast` (the files are never imported or run).

TVM's pass tests (``tests/python/relax/test_transform_*.py``) state the same fact in many shapes: a
test function defining ``Before``/``Expected`` and comparing ``relax.transform.X()(Before)`` with
``Expected`` through ``tvm.ir.assert_structural_equal``; a module-level helper (``verify``, ``_check``)
that applies the pass; a base class whose ``test_compare`` method reads ``self.Before`` and
``self.Expected`` of its subclasses; ``pytest.mark.parametrize`` and ``tvm.testing.parameter``
arguments; ``tvm.transform.Sequential`` chains and ``PassContext`` scopes. Rather than match each shape,
:class:`_Interp` runs every test *abstractly*: a small evaluator over the syntax tree that knows
literals, names, TVMScript definitions (cut out by :mod:`relax_ref.testing.tvm_corpus`), pass
constructors, pass application, helper functions and classes, and nothing else -- every other value is
:class:`Unknown`, so nothing of the file is ever executed. Each structural-equality assertion it
reaches becomes a :class:`Pair` when one side is a TVMScript definition transformed by passes whose
arguments are literals and the other a TVMScript definition, and a :class:`Site` with the reason
otherwise (input built with Python, a pass argument that is not a literal, an expected error, ...).
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from .tvm_corpus import dotted_name as _dotted
from .tvm_corpus import extract_file
from .tvm_pass_values import (  # noqa: F401  (re-exported)
    AUXILIARY, KNOWN_CONSTANTS, Applied, ClassV, Func, Inst, Item, LambdaV, Lit, MapV, Method, Namespace, Pair, ParamRef, ParamSlice,
    PassCall, Script,
    Seq, Site, Unknown, Values, primary_pass,
)
from .tvm_pass_values import is_dpl as _is_dpl

#: Python exceptions a test may name as its expected outcome
_EXCEPTIONS = frozenset({"Exception", "ValueError", "TypeError", "RuntimeError", "KeyError", "IndexError",
                         "AssertionError", "NotImplementedError", "AttributeError"})
_MAX_DEPTH = 40
_ROUND_TRIP = "a serialization round trip"


# ---------------------------------------------------------------------------------------------------
# Environments
# ---------------------------------------------------------------------------------------------------


class Env:
    def __init__(self, parent: Optional["Env"] = None) -> None:
        self.vars: Dict[str, Any] = {}
        self.parent = parent

    def get(self, name: str) -> Any:
        env: Optional[Env] = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        if name in _EXCEPTIONS or name in ("isinstance", "issubclass", "len", "range", "list", "dict", "tuple"):
            return Namespace(name)
        return Unknown(f"unknown name {name}")

    def set(self, name: str, value: Any) -> None:
        self.vars[name] = value


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


# ---------------------------------------------------------------------------------------------------
# The abstract interpreter
# ---------------------------------------------------------------------------------------------------


def _is_pass_path(path: str) -> Optional[str]:
    """``relax.transform.X`` / ``tvm.relax.transform.X`` / ``transform.X`` -> ``X``."""
    parts = path.split(".")
    if len(parts) >= 2 and parts[-2] == "transform" and parts[-1][:1].isupper():
        if parts[-1] in ("Sequential", "PassContext", "Pass", "PassInfo"):
            return None
        return parts[-1]
    return None


class _Interp:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = path.read_text(encoding="utf-8", errors="replace")
        self.tree = ast.parse(self.text)
        self.defs = {d.line: d for d in extract_file(path)}
        self.pairs: List[Pair] = []
        self.sites: List[Site] = []
        self.test = ""
        self.depth = 0
        self.raises = 0
        self.context: List[Tuple[str, Any]] = []
        self.globals = Env()
        self.fixtures: Dict[str, List[Any]] = {}
        self.expected_failure = False
        self.changes_registry = False

    # ---- entry ------------------------------------------------------------------------------------

    def run(self) -> None:
        self.exec_block(self.tree.body, self.globals)
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test"):
                fn = self.globals.vars.get(stmt.name)
                if isinstance(fn, Func):
                    for args in self.param_sets(stmt):
                        self.run_test(stmt.name, fn, args)
            elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
                cls = self.globals.vars.get(stmt.name)
                if isinstance(cls, ClassV):
                    for name in cls.mro_names():
                        meth = cls.lookup(name)
                        if name.startswith("test") and isinstance(meth, Func):
                            inst = Inst(cls)
                            for args in self.param_sets(meth.node):
                                self.run_test(f"{stmt.name}.{name}", Func(meth.node, meth.env, inst), args)

    def run_test(self, name: str, fn: Func, kwargs: Dict[str, Any]) -> None:
        self.test = name
        self.context = []
        self.raises = 0
        self.expected_failure = _marked_failing(fn.node) or (
            isinstance(fn.self_obj, Inst) and _marked_failing(fn.self_obj.cls.node))
        self.changes_registry = _changes_registry(fn.node) or any(
            _changes_registry(f) for f in self.tree.body if isinstance(f, ast.FunctionDef)
            and f.name in {a.arg for a in fn.node.args.args})     # through a fixture
        try:
            self.call_func(fn, [], kwargs)
        except RecursionError:
            self.site(fn.node.lineno, "the test nests too deeply to be followed")

    def param_sets(self, node: ast.FunctionDef) -> Iterator[Dict[str, Any]]:
        """Argument sets of a test: the product of its ``parametrize`` decorators and fixtures."""
        axes: List[List[Dict[str, Any]]] = []
        for dec in node.decorator_list:
            if isinstance(dec, ast.Call) and (_dotted(dec.func) or "").endswith("mark.parametrize") and len(dec.args) >= 2:
                names = self.eval(dec.args[0], self.globals)
                values = self.eval(dec.args[1], self.globals)
                if not (isinstance(names, Lit) and isinstance(values, Lit)):
                    continue
                keys = [n.strip() for n in names.value.split(",")] if isinstance(names.value, str) else list(names.value)
                sets = []
                for v in values.value:
                    vals = v if len(keys) > 1 else (v,)
                    sets.append({k: Lit(x) for k, x in zip(keys, vals)})
                axes.append(sets)
        params = [a.arg for a in node.args.args if a.arg != "self"]
        for p in params:
            if p in self.fixtures and not any(p in s[0] for s in axes if s):
                axes.append([{p: v} for v in self.fixtures[p]])
        for combo in itertools.product(*axes) if axes else [()]:
            out: Dict[str, Any] = {}
            for d in combo:
                out.update(d)
            yield out

    # ---- statements -------------------------------------------------------------------------------

    def exec_block(self, body: Sequence[ast.stmt], env: Env) -> None:
        for stmt in body:
            self.exec_stmt(stmt, env)

    def exec_stmt(self, s: ast.stmt, env: Env) -> None:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            self.exec_import(s, env)
        elif isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            self.exec_def(s, env)
        elif isinstance(s, ast.Assign):
            value = self.eval(s.value, env)
            for t in s.targets:
                self.assign(t, value, env)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self.assign(s.target, self.eval(s.value, env), env)
        elif isinstance(s, ast.AugAssign):
            self.assign(s.target, Unknown("augmented assignment"), env)
        elif isinstance(s, ast.Expr):
            if not self.exec_mutation(s.value, env):
                self.eval(s.value, env)
        elif isinstance(s, ast.Return):
            raise _Return(self.eval(s.value, env) if s.value is not None else Lit(None))
        elif isinstance(s, ast.Assert):
            self.exec_assert(s, env)
        elif isinstance(s, ast.If):
            self.exec_if(s, env)
        elif isinstance(s, ast.With):
            self.exec_with(s, env)
        elif isinstance(s, ast.Try):
            self.exec_block(s.body, env)
            self.exec_block(s.finalbody, env)
        elif isinstance(s, ast.For):
            self.exec_for(s, env)

    def exec_mutation(self, e: ast.AST, env: Env) -> bool:
        """``d.update(x)`` / ``l.append(x)`` / ``l.extend(x)`` on a name bound to a literal: the name is
        rebound to the changed literal (literals are immutable values here)."""
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
                and e.func.attr in ("update", "append", "extend") and len(e.args) == 1 and not e.keywords):
            return False
        name = e.func.value.id
        cur, arg = env.get(name), self.eval(e.args[0], env)
        if not (isinstance(cur, Lit) and isinstance(arg, Lit)):
            return False
        if e.func.attr == "update" and isinstance(cur.value, dict) and isinstance(arg.value, dict):
            new = Lit({**cur.value, **arg.value})
        elif e.func.attr == "append" and isinstance(cur.value, list):
            new = Lit(cur.value + [arg.value])
        elif e.func.attr == "extend" and isinstance(cur.value, list) and isinstance(arg.value, (list, tuple)):
            new = Lit(cur.value + list(arg.value))
        else:
            return False
        scope: Optional[Env] = env
        while scope is not None and name not in scope.vars:
            scope = scope.parent
        (scope or env).set(name, new)
        return True

    def exec_import(self, s: ast.stmt, env: Env) -> None:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.asname:
                    env.set(a.asname, Namespace(a.name))
                else:
                    env.set(a.name.split(".")[0], Namespace(a.name.split(".")[0]))
        elif s.module:
            for a in s.names:
                env.set(a.asname or a.name, Namespace(f"{s.module}.{a.name}"))

    def exec_def(self, s: ast.stmt, env: Env) -> None:
        d = self.defs.get(min([x.lineno for x in s.decorator_list] + [s.lineno]))
        d = d or self.defs.get(s.lineno)
        if d is not None and d.name == s.name:
            foreign = {b for m, _, b in d.imports if m.startswith("tvm.relax.testing")}   # Python values
            env.set(s.name, Script(d if d.standalone and not foreign else _bind_free_names(self, d, env, foreign)))
            return
        if isinstance(s, ast.FunctionDef):
            fixture = any((_dotted(x.func if isinstance(x, ast.Call) else x) or "").endswith("fixture")
                          for x in s.decorator_list)
            defaults = tuple(self.eval(x, env) for x in s.args.defaults)
            kw = {a.arg: self.eval(x, env) for a, x in zip(s.args.kwonlyargs, s.args.kw_defaults) if x is not None}
            env.set(s.name, Unknown("fixture") if fixture else Func(s, env, None, defaults, kw))
            return
        cenv = Env(env)
        bases = tuple(self.eval(b, env) for b in s.bases)
        self.exec_block(s.body, cenv)
        env.set(s.name, ClassV(s, env, bases, cenv.vars))

    def assign(self, target: ast.AST, value: Any, env: Env) -> None:
        if isinstance(target, ast.Name):
            env.set(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Values):
                items = list(value.items)
            elif isinstance(value, Lit) and isinstance(value.value, (tuple, list)):
                items = [Lit(x) for x in value.value]
            else:
                items = None
            for i, t in enumerate(target.elts):
                v = items[i] if items is not None and i < len(items) else Unknown("unpacked value")
                self.assign(t, v, env)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            obj = env.get(target.value.id)
            if isinstance(obj, Inst):
                obj.attrs[target.attr] = value
        # other targets (subscripts, ...) change nothing we track

    def exec_if(self, s: ast.If, env: Env) -> None:
        test = self.eval(s.test, env)
        if isinstance(test, Lit):
            self.exec_block(s.body if test.value else s.orelse, env)
        else:   # unknown condition: follow both branches
            self.exec_block(s.body, env)
            self.exec_block(s.orelse, env)

    def exec_with(self, s: ast.With, env: Env) -> None:
        pushed = 0
        raises = False
        for item in s.items:
            path = _dotted(item.context_expr.func) if isinstance(item.context_expr, ast.Call) else None
            if path and path.endswith("raises"):
                raises = True
            elif path and path.endswith("PassContext"):
                for kw in item.context_expr.keywords:
                    self.context.append((kw.arg, self.eval(kw.value, env)))
                    pushed += 1
            elif path and path.endswith("Target") or (path or "").endswith("target"):
                self.context.append(("target", Lit(True)))
                pushed += 1
            if item.optional_vars is not None:
                self.assign(item.optional_vars, Unknown("context value"), env)
        self.raises += raises
        try:
            self.exec_block(s.body, env)
        finally:
            self.raises -= raises
            del self.context[len(self.context) - pushed:]

    def exec_for(self, s: ast.For, env: Env) -> None:
        from .tvm_pass_copy import copy_loop, merge_functions

        copy = copy_loop(s)
        if copy is not None:       # an expected module completed with the input's functions
            src, dst = env.get(copy[0]), env.get(copy[1])
            if isinstance(src, Script) and isinstance(dst, Script) and dst.defn.kind == "module":
                merged = merge_functions(src.defn, dst.defn, copy[2])
                if merged is not None:
                    env.set(copy[1], Script(merged, dst.wrap))
            return
        it = self.eval(s.iter, env)
        if isinstance(it, Lit) and isinstance(it.value, (list, tuple)):
            for v in it.value:
                self.assign(s.target, Lit(v), env)
                self.exec_block(s.body, env)

    def exec_assert(self, s: ast.Assert, env: Env) -> None:
        t = s.test
        if isinstance(t, ast.Call) and (_dotted(t.func) or "").endswith("structural_equal"):
            args = [self.eval(a, env) for a in t.args[:2]]
            if len(args) == 2:
                self.compare(s.lineno, args[0], args[1])

    # ---- expressions ------------------------------------------------------------------------------

    def eval(self, e: ast.AST, env: Env) -> Any:
        if isinstance(e, ast.Constant):
            return Lit(e.value)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            items = [self.eval(x, env) for x in e.elts]
            if all(isinstance(x, Lit) for x in items):
                vals = [x.value for x in items]
                return Lit(tuple(vals) if isinstance(e, ast.Tuple) else vals if isinstance(e, ast.List) else set(vals))
            return Values(tuple(items), "tuple" if isinstance(e, ast.Tuple) else "list")
        if isinstance(e, ast.Dict):
            keys = [self.eval(k, env) if k is not None else Unknown("**") for k in e.keys]
            vals = [self.eval(v, env) for v in e.values]
            if all(isinstance(x, Lit) for x in keys + vals):
                return Lit({k.value: v.value for k, v in zip(keys, vals)})
            if all(isinstance(k, Lit) for k in keys):
                return MapV(tuple((k.value, v) for k, v in zip(keys, vals)))
            return Unknown("dict of values")
        if isinstance(e, ast.Lambda):
            return LambdaV(e)
        if isinstance(e, ast.Name):
            return env.get(e.id)
        if isinstance(e, ast.Attribute):
            return self.attribute(self.eval(e.value, env), e.attr)
        if isinstance(e, ast.Subscript):
            return self.subscript(self.eval(e.value, env), self.eval(e.slice, env))
        if isinstance(e, ast.Slice):
            parts = [self.eval(x, env) if x is not None else Lit(None) for x in (e.lower, e.upper, e.step)]
            if all(isinstance(x, Lit) for x in parts):
                return Lit(slice(*(x.value for x in parts)))
            return Unknown("slice")
        if isinstance(e, ast.Call):
            return self.call(e, env)
        if isinstance(e, ast.BinOp):
            return self.binop(e, env)
        if isinstance(e, ast.UnaryOp):
            v = self.eval(e.operand, env)
            if isinstance(e.op, ast.Invert) and _is_dpl(v):
                return ~v
            if isinstance(v, Lit):
                if isinstance(e.op, ast.Not):
                    return Lit(not v.value)
                if isinstance(e.op, ast.USub) and isinstance(v.value, (int, float)):
                    return Lit(-v.value)
            return Unknown("unary operation")
        if isinstance(e, ast.BoolOp):
            vals = [self.eval(x, env) for x in e.values]
            if all(isinstance(v, Lit) for v in vals):
                return Lit(all(v.value for v in vals) if isinstance(e.op, ast.And) else any(v.value for v in vals))
            if isinstance(e.op, ast.And) and any(isinstance(v, Lit) and not v.value for v in vals):
                return Lit(False)
            return Unknown("boolean operation")
        if isinstance(e, ast.Compare) and len(e.ops) == 1:
            a, b = self.eval(e.left, env), self.eval(e.comparators[0], env)
            if isinstance(a, Lit) and isinstance(b, Lit):
                op = e.ops[0]
                table = {ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y,
                         ast.Is: lambda x, y: x is y, ast.IsNot: lambda x, y: x is not y}
                if type(op) in table:
                    return Lit(table[type(op)](a.value, b.value))
            return Unknown("comparison")
        if isinstance(e, ast.IfExp):
            t = self.eval(e.test, env)
            if isinstance(t, Lit):
                return self.eval(e.body if t.value else e.orelse, env)
            return Unknown("conditional expression")
        return Unknown(f"{type(e).__name__} expression")

    def binop(self, e: ast.BinOp, env: Env) -> Any:
        from .tvm_pass_dpl import binary

        a, b = self.eval(e.left, env), self.eval(e.right, env)
        ops = {ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.RShift: ">>"}
        if (_is_dpl(a) or _is_dpl(b)) and type(e.op) in ops:
            try:
                return binary(ops[type(e.op)], a, b)
            except Exception as err:  # noqa: BLE001 - a pattern relax-ref cannot build stays unknown
                return Unknown(f"pattern: {err}")
        return Unknown("binary operation")

    def attribute(self, obj: Any, attr: str) -> Any:
        from .tvm_pass_dpl import METHODS

        if _is_dpl(obj) and attr in METHODS:
            return Method(obj, attr)
        if isinstance(obj, Namespace):
            return Namespace(f"{obj.path}.{attr}")
        if isinstance(obj, Item) and isinstance(obj.base, Script) and attr == "params":
            return ParamRef(obj.base, obj.key, None)
        if isinstance(obj, Inst):
            if attr in obj.attrs:
                return obj.attrs[attr]
            v = obj.cls.lookup(attr)
            if isinstance(v, Func):
                return Func(v.node, v.env, obj, v.defaults, v.kw_defaults)
            return v if v is not None else Unknown(f"attribute {attr}")
        if isinstance(obj, ClassV):
            v = obj.lookup(attr)
            return v if v is not None else Unknown(f"attribute {attr}")
        return Unknown(f"attribute {attr}")

    def subscript(self, obj: Any, key: Any) -> Any:
        if isinstance(key, Lit) and isinstance(key.value, str) and isinstance(obj, (Script, Applied)):
            return Item(obj, key.value)
        if isinstance(obj, ParamRef) and obj.index is None and isinstance(key, Lit):
            if isinstance(key.value, int):
                return ParamRef(obj.script, obj.func, key.value)
            if isinstance(key.value, slice) and all(isinstance(x, (int, type(None))) for x in
                                                    (key.value.start, key.value.stop, key.value.step)):
                return ParamSlice(obj.script, obj.func, key.value.start, key.value.stop)
        if isinstance(obj, Lit) and isinstance(key, Lit):
            try:
                return Lit(obj.value[key.value])
            except (KeyError, IndexError, TypeError):
                return Unknown("subscript")
        if isinstance(obj, Values) and isinstance(key, Lit) and isinstance(key.value, int):
            return obj.items[key.value] if -len(obj.items) <= key.value < len(obj.items) else Unknown("subscript")
        return Unknown("subscript")

    def call(self, e: ast.Call, env: Env) -> Any:
        fn = self.eval(e.func, env)
        if any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
            return Unknown("call with * or ** arguments")
        args = [self.eval(a, env) for a in e.args]
        kwargs = {k.arg: self.eval(k.value, env) for k in e.keywords}
        if isinstance(fn, Method) or _is_dpl(fn):
            from . import tvm_pass_dpl as tpd

            try:
                if isinstance(fn, Method):
                    return tpd.call_method(fn.obj, fn.name, args, kwargs)
                return tpd.call_pattern(fn, args, kwargs)
            except Exception as err:  # noqa: BLE001 - a pattern relax-ref cannot build stays unknown
                return Unknown(f"pattern: {err}")
        if isinstance(fn, Namespace):
            return self.call_namespace(fn.path, args, kwargs, e.lineno)
        if isinstance(fn, (PassCall, Seq)):
            return self.apply(fn, args)
        if isinstance(fn, Func):
            return self.call_func(fn, args, kwargs)
        if isinstance(fn, ClassV):
            return Inst(fn)
        return Unknown("call of an unknown function")

    def call_namespace(self, path: str, args: List[Any], kwargs: Dict[str, Any], line: int) -> Any:
        from . import tvm_pass_dpl as tpd

        last = path.rsplit(".", 1)[-1]
        dpl_name = tpd.is_dpl_path(path)
        if dpl_name is not None:
            try:
                return tpd.call_function(dpl_name, args, kwargs)
            except Exception as err:  # noqa: BLE001 - a pattern relax-ref cannot build stays unknown
                return Unknown(f"pattern: {err}")
        if last in ("assert_structural_equal",) and len(args) >= 2:
            free = kwargs.get("map_free_vars", args[2] if len(args) > 2 else None)
            self.compare(line, args[0], args[1], isinstance(free, Lit) and free.value is True)
            return Lit(None)
        name = _is_pass_path(path)
        if name is not None:
            return PassCall(name, tuple(args), tuple(sorted(kwargs.items())))
        if last == "Sequential" and args:
            seq = args[0]
            if isinstance(seq, Values):
                return Seq(seq.items)
            return Unknown("sequence of unknown passes")
        if last == "from_expr" and args and isinstance(args[0], Script):
            return Script(args[0].defn, True)
        if last == "IRModule" and args and isinstance(args[0], Lit) and isinstance(args[0].value, dict):
            funcs = args[0].value
            if len(funcs) == 1:
                (key, v), = funcs.items()
                if isinstance(v, Script) and key == "main":
                    return Script(v.defn, True)
            return Unknown("IRModule built from Python")
        if last == "parameter" and path.endswith("testing.parameter"):
            return Unknown("fixture")
        if last == "isclass" and args:
            return Lit(isinstance(args[0], ClassV) or (isinstance(args[0], Namespace) and args[0].path in _EXCEPTIONS))
        if last == "issubclass" and len(args) == 2:
            a, b = args
            if isinstance(a, Namespace) and isinstance(b, Namespace):
                return Lit(a.path in _EXCEPTIONS and b.path in _EXCEPTIONS)
            return Lit(False)
        if last == "load_json":
            return Unknown(_ROUND_TRIP)
        if last == "isinstance":
            return Unknown("isinstance")
        return Unknown(f"call of {path}")

    def apply(self, p: Any, args: List[Any]) -> Any:
        if len(args) != 1:
            return Unknown("pass applied to several values")
        mod = args[0]
        chain = self.flatten(p)
        if chain is None:
            return Unknown("sequence of unknown passes")
        chain = tuple(replace(p, context=tuple(self.context)) for p in chain)   # the context of the call
        if isinstance(mod, Applied):
            return Applied(mod.base, mod.chain + chain)
        return Applied(mod, chain)

    def flatten(self, p: Any) -> Optional[Tuple[PassCall, ...]]:
        if isinstance(p, PassCall):
            return (p,)
        if isinstance(p, Seq):
            out: Tuple[PassCall, ...] = ()
            for q in p.passes:
                f = self.flatten(q)
                if f is None:
                    return None
                out += f
            return out
        return None

    def call_func(self, fn: Func, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        node = fn.node
        if self.depth > _MAX_DEPTH:
            return Unknown("calls nest too deeply")
        env = Env(fn.env)
        params = [a.arg for a in node.args.args]
        if fn.self_obj is not None and params:
            env.set(params[0], fn.self_obj)
            params = params[1:]
        defaults = dict(zip(params[len(params) - len(fn.defaults):], fn.defaults)) if fn.defaults else {}
        for i, p in enumerate(params):
            if i < len(args):
                env.set(p, args[i])
            elif p in kwargs:
                env.set(p, kwargs[p])
            elif p in defaults:
                env.set(p, defaults[p])
            else:
                env.set(p, Unknown(f"parameter {p}"))
        for a in node.args.kwonlyargs:
            env.set(a.arg, kwargs.get(a.arg, fn.kw_defaults.get(a.arg, Unknown(f"parameter {a.arg}"))))
        self.depth += 1
        try:
            self.exec_block(node.body, env)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
        return Lit(None)

    # ---- comparisons ------------------------------------------------------------------------------

    def site(self, line: int, reason: str, pass_name: str = "") -> None:
        self.sites.append(Site(str(self.path), line, self.test, reason, pass_name))

    def compare(self, line: int, a: Any, b: Any, map_free_vars: bool = False) -> None:
        sides = [_unpack(a), _unpack(b)]
        n = [len(s[1]) if s else 0 for s in sides]
        chains = [s[1] for s in sides if s]
        pass_name = primary_pass(max(chains, key=len)) if chains else ""
        if self.raises:
            self.site(line, "expects an error", pass_name)
            return
        if self.expected_failure:
            self.site(line, "the test is marked xfail or skip", pass_name)
            return
        if self.changes_registry:
            self.site(line, "the test changes TVM's operator registry", pass_name)
            return
        if Unknown(_ROUND_TRIP) in (a, b):
            return        # a check of TVM's serializer, not of a pass
        if max(n) == 0:
            if any(s is None for s in sides):
                self.site(line, _why(a if sides[0] is None else b), pass_name)
            return        # a comparison of two definitions, not of a pass's output
        act, exp = (0, 1) if n[0] > n[1] else (1, 0)
        if n[0] == n[1]:
            self.site(line, "both sides transformed alike", pass_name)
            return
        if sides[exp] is None or sides[act] is None:
            self.site(line, _why(a if sides[0] is None else b), pass_name)
            return
        (abase, achain, asel), (ebase, echain, esel) = sides[act], sides[exp]
        for side in (abase, ebase):
            if not isinstance(side, Script):
                self.site(line, _why(side), pass_name)
                return
        bad = [p for p in achain + echain if not p.literal]
        if bad:
            self.site(line, f"arguments of {bad[0].name} are not literals", pass_name)
            return
        self.pairs.append(Pair(str(self.path), line, self.test, abase.defn, abase.wrap, achain, ebase.defn,
                               ebase.wrap, echain, asel, esel, map_free_vars))


_REGISTRY_CHANGES = ("reset_attr", "set_attr", "register_legalize", "register_op_attr", "register_gradient",
                     "register_te_gradient", "register_func")


def _changes_registry(node: ast.AST) -> bool:
    """A test that resets or registers operator attributes (``Op.reset_attr``, ``register_legalize``):
    its expected output holds for TVM's registry as the test leaves it, which relax-ref does not model."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            name = sub.func.attr if isinstance(sub.func, ast.Attribute) else getattr(sub.func, "id", "")
            if name in _REGISTRY_CHANGES:
                return True
    return False


def _marked_failing(node: ast.AST) -> bool:
    """``@pytest.mark.xfail`` / ``@pytest.mark.skip`` (TVM itself does not pass such a test)."""
    for dec in getattr(node, "decorator_list", ()):
        path = _dotted(dec.func if isinstance(dec, ast.Call) else dec) or ""
        if path.endswith("mark.xfail") or path.endswith("mark.skip"):
            return True
    return False


def _unpack(v: Any) -> Optional[Tuple[Any, Tuple[PassCall, ...], Optional[str]]]:
    """(base, chain, selected function) of a compared value; None when it is not one we follow."""
    sel = None
    if isinstance(v, Item):
        sel, v = v.key, v.base
    if isinstance(v, Applied):
        return v.base, v.chain, sel
    if isinstance(v, Script):
        return v, (), sel
    return None


def _why(v: Any) -> str:
    if isinstance(v, Applied):
        v = v.base
    if isinstance(v, Unknown):
        return f"not followed: {v.reason}"
    return f"not followed: {type(v).__name__}"


# ---------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------


def _fixtures(interp: _Interp) -> None:
    """``name = tvm.testing.parameter(lit, ...)`` at module level: the values of fixture ``name``."""
    for stmt in interp.tree.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and (_dotted(stmt.value.func) or "").endswith("testing.parameter")):
            vals = [interp.eval(a, interp.globals) for a in stmt.value.args]
            if all(isinstance(v, Lit) for v in vals):
                interp.fixtures[stmt.targets[0].id] = vals


def extract_pairs_file(path: Path) -> Tuple[List[Pair], List[Site]]:
    """The pairs and unfollowed assertion sites of one test file."""
    try:
        interp = _Interp(Path(path))
    except SyntaxError:
        return [], [Site(str(path), 0, "", "the file does not parse as Python")]
    _fixtures(interp)
    interp.run()
    return interp.pairs, interp.sites


def _bind_free_names(interp: "_Interp", d, env: Env, foreign: frozenset = frozenset()):
    """``d`` with its uses of the test's Python values written as the literals they hold (``sindex["n"]``,
    ``MS.STORE_TO_HEAP``), standalone when every use is such a literal; else ``d`` unchanged."""
    try:
        tree = ast.parse(d.body)
    except SyntaxError:
        return d
    free = set(d.free_names) | set(foreign)
    edits: List[Tuple[int, int, int, int, str]] = []
    unresolved = False

    def root(n: ast.AST) -> Optional[str]:
        while isinstance(n, (ast.Attribute, ast.Subscript)):
            n = n.value
        return n.id if isinstance(n, ast.Name) else None

    def walk(n: ast.AST) -> None:
        nonlocal unresolved
        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and root(n) in free:
            v = interp.eval(n, env)
            if isinstance(v, Namespace) and v.path in KNOWN_CONSTANTS:
                v = Lit(KNOWN_CONSTANTS[v.path])
            if isinstance(v, Lit) and isinstance(v.value, (bool, int, float, str)):
                edits.append((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset, repr(v.value)))
                return
            if isinstance(n, ast.Name):
                unresolved = True
                return
        for c in ast.iter_child_nodes(n):
            walk(c)

    walk(tree)
    if unresolved or not edits:
        return d
    lines = d.body.split("\n")
    for l0, c0, l1, c1, text in sorted(edits, reverse=True):
        if l0 != l1:
            return d
        line = lines[l0 - 1]
        lines[l0 - 1] = line[:c0] + text + line[c1:]
    body = "\n".join(lines)
    head = d.text[:len(d.text) - len(d.body)] if d.text.endswith(d.body) else None
    if head is None:
        return d
    if foreign:     # the imports of Python values now written as literals
        head = "\n".join(x for x in head.split("\n")
                          if not (x.startswith(("from ", "import ")) and set(re.findall(r"\w+", x)) & set(foreign)))
    return replace(d, text=head + body, body=body, standalone=True, free_names=())


#: The files holding TVM's Relax pass tests: ``test_transform*.py``, the distributed passes' tests
#: (``distributed/test_distributed_transform*.py``) and a few named otherwise
PATTERNS = ("test_transform*.py", "test_kill_after_last_use.py", "test_lower_alloc_tensor.py",
            "test_backend_transform_shape_lower.py", "distributed/test_distributed_transform*.py",
            "test_distributed_transform*.py")


def pass_test_files(root: Path, patterns: Sequence[str] = PATTERNS) -> List[Path]:
    """The pass test files under ``root`` (a TVM checkout or its ``tests/python/relax``)."""
    root = Path(root)
    if root.is_file():
        return [root]
    sub = root / "tests" / "python" / "relax"
    if sub.is_dir():
        root = sub
    return sorted({f for pat in patterns for f in root.glob(pat)})


def extract_pairs(root: Path, patterns: Sequence[str] = PATTERNS) -> Tuple[List[Pair], List[Site]]:
    pairs: List[Pair] = []
    sites: List[Site] = []
    for f in pass_test_files(root, patterns):
        p, s = extract_pairs_file(f)
        pairs += p
        sites += s
    return pairs, sites


__all__ = ["Pair", "Site", "PassCall", "Lit", "extract_pairs", "extract_pairs_file", "pass_test_files", "primary_pass",
           "AUXILIARY", "PATTERNS"]
