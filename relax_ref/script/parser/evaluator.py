"""The safe expression evaluator: a whitelist walk over Python's ``ast`` (TEXT.SAFE.1-4).

Untrusted text is data. The evaluator

* never calls ``eval``/``exec``/``compile``/``importlib`` and never looks up an attribute of a real
  Python object: a dotted name is a :class:`~.values.Ref` string, resolved by table look-up;
* resolves every name in the parser's own scope (TVMScript namespaces, variables, buffers, symbolic
  variables, the module's functions); anything else is a located ParseError;
* evaluates only the node kinds it knows (literals, names, dotted names, calls of known constructs,
  subscripts, tuples/lists/dicts, arithmetic and comparisons) and rejects every other kind of Python
  syntax (lambda, comprehensions, f-strings, walrus, ...);
* computes Python-level arithmetic only on numbers, with bounded results.

Calls of ``R.*`` / ``T.*`` / ``I.*`` names dispatch through :data:`~.calls.HANDLERS` (filled by the builtin
modules); ``R.*`` names without a handler are operators looked up in the operator registry.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional

from ...errors import ParseError, RelaxError, Span, did_you_mean
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import tir
from ...ir.struct_info import StructInfo
from ..dialect import KEYWORD_ALIASES
from . import prim
from .calls import HANDLERS, REQUIRED, STATEMENT_ONLY, CallInfo, bind_params
from .scope import Scope
from .source import Source
from .values import (
    BufferMethod, GlobalSymDecl, InspectProxy, MetadataList, MetadataTable, ModuleRef, Ref, ScalarRef,
)

_MISSING = object()

#: Python syntax the evaluator refuses, with a readable name
_FORBIDDEN = {
    ast.Lambda: "lambda expressions", ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions", ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions", ast.Await: "await", ast.Yield: "yield",
    ast.YieldFrom: "yield from", ast.NamedExpr: "assignment expressions (:=)",
    ast.JoinedStr: "f-strings", ast.FormattedValue: "f-strings", ast.Set: "set literals",
    ast.IfExp: "conditional expressions (x if c else y)", ast.Starred: "starred expressions here",
    ast.Slice: "slices here",
}

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "floormod", ast.Pow: "pow", ast.LShift: "shift_left", ast.RShift: "shift_right",
           ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor"}
_BITWISE = frozenset(("shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"))
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}

#: Relax operator sugar (TVM's ExprWithOp): Python operator -> registry script name
RELAX_SUGAR = {"add": "R.add", "sub": "R.subtract", "mul": "R.multiply", "div": "R.divide",
               "floordiv": "R.floor_divide", "floormod": "R.mod", "pow": "R.power", "lt": "R.less",
               "le": "R.less_equal", "gt": "R.greater", "ge": "R.greater_equal"}

MAX_REF_DEPTH = 6

#: ``x.<name>`` of a Relax tensor and the inspection operator it calls (TEXT.EXPR.9)
_INSPECT_CALLS = {"ndim": "R.inspect.tensor_ndim", "byte_offset": "R.inspect.tensor_byte_offset",
                  "elem_offset": "R.inspect.tensor_elem_offset"}
_DTYPE_FIELDS = {"type_code": "R.inspect.tensor_dtype_code", "bits": "R.inspect.tensor_dtype_bits",
                 "lanes": "R.inspect.tensor_dtype_lanes"}


class Evaluator:
    """Evaluates expression nodes in ``scope``. ``mode`` is ``"relax"``, ``"tir"`` or ``"module"``.

    ``src`` is the Source positions are taken from (a string dim has its own sub-source).
    """

    def __init__(self, ctx, scope: Scope, mode: str, src: Optional[Source] = None) -> None:
        self.ctx = ctx
        self.scope = scope
        self.mode = mode
        self.src: Source = src if src is not None else ctx.src

    # -- helpers -------------------------------------------------------------------------------
    @property
    def int_dtype(self) -> str:
        """The dtype of a stand-alone Python integer made a scalar expression (PRIM.DTYPE.2): int64 in
        Relax code (shape positions), int32 in TensorIR."""
        return "int32" if self.mode == "tir" else "int64"

    def span(self, node: Optional[ast.AST]) -> Optional[Span]:
        return self.src.span(node)

    def error(self, node: Optional[ast.AST], message: str, **kw) -> ParseError:
        return self.src.error(node, message, **kw)

    def with_scope(self, scope: Scope) -> "Evaluator":
        return Evaluator(self.ctx, scope, self.mode, self.src)

    def with_mode(self, mode: str) -> "Evaluator":
        return Evaluator(self.ctx, self.scope, mode, self.src)

    # -- dispatch ------------------------------------------------------------------------------
    def eval_node(self, node: ast.AST) -> Any:
        """The value of one ast node: dispatches to ``visit_<NodeKind>``; script text is never run."""
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            what = _FORBIDDEN.get(type(node), type(node).__name__)
            raise self.error(node, f"unsupported Python syntax in TVMScript: {what}")
        try:
            return method(node)
        except RecursionError:
            raise self.error(node, "expression nested too deeply") from None

    def visit_Constant(self, node: ast.Constant) -> Any:
        v = node.value
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        raise self.error(node, f"unsupported literal {type(v).__name__}")

    def visit_Name(self, node: ast.Name) -> Any:
        v = self.scope.lookup(node.id, _MISSING)
        if v is _MISSING:
            if node.id == "metadata":
                raise self.error(node, "this text refers to metadata[...] constants, but their values were "
                                       "omitted ('# Metadata omitted'); print the module with "
                                       "show_meta=True to include the metadata header")
            raise self.error(node, f"undefined name '{node.id}'")
        if isinstance(v, GlobalSymDecl):
            v = self.ctx.instantiate_global_sym(self.scope, v)
        if isinstance(v, ScalarRef):
            if self.mode == "tir":
                return tir.BufferLoad(v.buffer, (P.IntImm(0, "int32"),))
            return v
        return v

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval_node(node.value)
        name = node.attr
        if name.startswith("_"):
            raise self.error(node, f"access to the private attribute '{name}' is not allowed")
        if isinstance(base, Ref):
            if base.path.count(".") >= MAX_REF_DEPTH:
                raise self.error(node, f"unknown TVMScript name '{base.path}.{name}'")
            return base.child(name)
        if isinstance(base, ModuleRef):
            gv = base.gvars.get(name)
            if gv is None:
                raise self.error(node, f"module '{base.name}' has no function named '{name}'"
                                       f"{did_you_mean(name, base.gvars)}")
            return gv
        if isinstance(base, tir.Buffer):
            return self.buffer_attribute(base, name, node)
        if isinstance(base, rx.Expr) and self.mode == "relax":
            return self.relax_attribute(base, name, node)
        if isinstance(base, StructInfo):
            return self.struct_info_attribute(base, name, node)
        if isinstance(base, InspectProxy) and base.field == "dtype" and name in _DTYPE_FIELDS:
            return self.call_operator(_DTYPE_FIELDS[name], [base.tensor], {}, node, node)
        raise self.error(node, f"attribute access '.{name}' is only supported on TVMScript namespaces, "
                               f"buffers, Relax values and the module name, not on {prim.describe(base)}")

    def struct_info_attribute(self, s: StructInfo, name: str, node: ast.AST) -> Any:
        """``x.struct_info.shape`` / ``.dtype`` / ``.ndim`` / ``.values`` / ``.value`` / ``.fields``: the
        fields of a struct info, as TVM's objects have them (TEXT.EXPR.9)."""
        from ...ir import struct_info as si

        fields = {si.TensorStructInfo: ("shape", "dtype", "ndim", "vdevice"), si.ShapeStructInfo: ("values", "ndim"),
                  si.PrimStructInfo: ("dtype", "value"), si.TupleStructInfo: ("fields",)}.get(type(s), ())
        if name not in fields:
            raise self.error(node, f"{type(s).__name__} has no field '.{name}' in TVMScript")
        v = getattr(s, name)
        if v is None:
            raise self.error(node, f"the '.{name}' of this {type(s).__name__} is not known")
        return tuple(v) if isinstance(v, (list, tuple)) else v

    def relax_attribute(self, base: rx.Expr, name: str, node: ast.AST) -> Any:
        """Attributes of a Relax value (TEXT.EXPR.9): ``x.struct_info`` / ``x.ty`` (its written struct
        info), and TVM's run-time inspection of a tensor -- ``x.ndim``, ``x.byte_offset``,
        ``x.elem_offset``, ``x.dtype.type_code|bits|lanes``, ``x.shape[i]``, ``x.strides[i]`` -- which are
        calls of the ``R.inspect.*`` operators."""
        if name in ("struct_info", "ty"):
            if base.struct_info is None:
                raise self.error(node, f"the struct info of {prim.describe(base)} is not known where '.{name}' "
                                       f"is read; annotate the variable")
            return base.struct_info
        if name in _INSPECT_CALLS:
            return self.call_operator(_INSPECT_CALLS[name], [base], {}, node, node)
        if name in ("dtype", "shape", "strides"):
            return InspectProxy(base, name)
        if name == "astype":
            return InspectProxy(base, "astype")  # x.astype("float32") is R.astype(x, "float32")
        raise self.error(node, f"a Relax value has no attribute '.{name}' in TVMScript")

    def buffer_attribute(self, buf: tir.Buffer, name: str, node: ast.AST) -> Any:
        if name == "shape":
            return tuple(buf.shape)
        if name == "dtype":
            return buf.dtype
        if name == "data":
            return buf.data
        if name == "view":
            return BufferMethod(buf, name)
        raise self.error(node, f"unsupported buffer attribute '.{name}'")

    def visit_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._elts(node.elts))

    def visit_List(self, node: ast.List) -> list:
        return list(self._elts(node.elts))

    def _elts(self, elts) -> List[Any]:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval_node(e.value)
                if not isinstance(v, (tuple, list)):
                    raise self.error(e, "only a tuple or list can be unpacked with '*'")
                out.extend(v)
            else:
                out.append(self.eval_node(e))
        return out

    def visit_Dict(self, node: ast.Dict) -> dict:
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise self.error(v, "dict unpacking (**) is not supported")
            key = self.eval_node(k)
            if not isinstance(key, (str, int, P.PrimVar)) or isinstance(key, bool):
                raise self.error(k, f"dict keys must be strings, got {prim.describe(key)}")
            out[key] = self.eval_node(v)
        return out

    # -- operators -----------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(node, f"unsupported operator {type(node.op).__name__}")
        a = self.eval_node(node.left)
        b = self.eval_node(node.right)
        return self.binary(op, a, b, node)

    def scalar_operands(self, *vals: Any) -> Optional[List[Any]]:
        """tvm-0.27 arithmetic on Relax scalar variables (``y = n + 1`` with ``n: T.int64``): when
        every operand is a number, a scalar expression or a Relax value standing for one, and at
        least one is a Relax value, the operands as scalars (TEXT.DIALECT.3); None otherwise. In tvm-0.25
        text only with a number or scalar expression among the operands (which tvm-0.25 rejects)."""
        strict = not self.ctx.relax_dialect.prim_bindings
        if strict and not any(prim.is_num(v) or isinstance(v, P.PrimExpr) for v in vals):
            return None  # between Relax values tvm-0.25 means the operator (R.add), not scalar arithmetic
        out = []
        for v in vals:
            if isinstance(v, rx.Expr):
                s = prim.scalar_of(v)
                if s is None:
                    return None
                out.append(s)
            elif prim.is_num(v) or isinstance(v, P.PrimExpr):
                out.append(v)
            else:
                return None
        return out if any(isinstance(v, rx.Expr) for v in vals) else None

    def binary(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        span = self.span(node)
        scalars = self.scalar_operands(a, b)
        if scalars is not None:
            a, b = scalars
        if isinstance(a, rx.Expr) or isinstance(b, rx.Expr):
            return self.relax_binary(op, a, b, node)
        if op in _BITWISE:  # << >> & | ^
            if prim.is_num(a) and prim.is_num(b):
                return self._py_bitwise(op, a, b, node)
            return prim.intrinsic(op, [a, b], span)
        if op in ("add", "sub", "mul", "div", "floordiv", "floormod", "pow"):
            for v in (a, b):
                if not (prim.is_num(v) or isinstance(v, P.PrimExpr)):
                    raise self.error(node, f"unsupported operand for arithmetic: {prim.describe(v)}")
        return prim.binary(op, a, b, span)

    def _py_bitwise(self, op: str, a, b, node) -> int:
        if not isinstance(a, int) or not isinstance(b, int):
            raise self.error(node, "bitwise operators need integers")
        if op in ("shift_left", "shift_right") and not 0 <= b <= 64:
            raise self.error(node, "shift amount out of range")
        if op == "shift_left":
            return a << b
        if op == "shift_right":
            return a >> b
        if op == "bitwise_and":
            return a & b
        if op == "bitwise_or":
            return a | b
        return a ^ b

    def relax_binary(self, op: str, a: Any, b: Any, node: ast.AST) -> Any:
        if self.mode != "relax":
            raise self.error(node, "Relax expressions cannot be used in this context")
        script = RELAX_SUGAR.get(op)
        if script is None:
            raise self.error(node, f"operator '{op}' is not defined on Relax expressions")
        for v in (a, b):
            if not isinstance(v, rx.Expr):
                if prim.is_num(v):
                    raise self.error(node, f"please convert {v!r} with R.const or R.prim_value before "
                                           f"using it with a Relax expression")
                raise self.error(node, f"unsupported operand for {script}: {prim.describe(v)}")
        return self.call_operator(script, [a, b], {}, node, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.eval_node(node.operand)
        span = self.span(node)
        scalars = self.scalar_operands(v)
        if scalars is not None:
            v = scalars[0]
        if isinstance(node.op, ast.USub):
            if isinstance(v, rx.Expr):
                if self.mode != "relax":
                    raise self.error(node, "Relax expressions cannot be used in this context")
                return self.call_operator("R.negative", [v], {}, node, node)
            return prim.negate(v, span)
        if isinstance(node.op, ast.UAdd):
            if prim.is_num(v) or isinstance(v, P.PrimExpr):
                return v
            raise self.error(node, f"unary '+' is not supported on {prim.describe(v)}")
        if isinstance(node.op, ast.Not):
            if isinstance(v, rx.Expr):
                raise self.error(node, "'not' is not defined on Relax expressions; use R.logical_not")
            return prim.logical_not(v, span)
        if isinstance(node.op, ast.Invert):
            if isinstance(v, int) and not isinstance(v, bool):
                return ~v
            if isinstance(v, rx.Expr):
                raise self.error(node, "'~' is not defined on Relax expressions; use R.bitwise_not")
            return prim.intrinsic("bitwise_not", [v], span)
        raise self.error(node, "unsupported unary operator")

    def visit_Compare(self, node: ast.Compare) -> Any:
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons (a < b < c) are not supported")
        op = _CMPOPS.get(type(node.ops[0]))
        if op is None:
            raise self.error(node, f"unsupported comparison {type(node.ops[0]).__name__}")
        a = self.eval_node(node.left)
        b = self.eval_node(node.comparators[0])
        scalars = self.scalar_operands(a, b)
        if scalars is not None:
            a, b = scalars
        if isinstance(a, rx.Expr) or isinstance(b, rx.Expr):
            if op in ("eq", "ne"):
                raise self.error(node, "'==' and '!=' are not defined on Relax expressions; use R.equal / "
                                       "R.not_equal")
            return self.relax_binary(op, a, b, node)
        for v in (a, b):
            if not (prim.is_num(v) or isinstance(v, P.PrimExpr)):
                if op in ("eq", "ne") and isinstance(a, str) and isinstance(b, str):
                    return (a == b) if op == "eq" else (a != b)
                raise self.error(node, f"cannot compare {prim.describe(v)}")
        return prim.binary(op, a, b, self.span(node))

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        op = "and" if isinstance(node.op, ast.And) else "or"
        vals = [self.eval_node(v) for v in node.values]
        vals = self.scalar_operands(*vals) or vals
        for v in vals:
            if isinstance(v, rx.Expr):
                raise self.error(node, f"'{op}' is not defined on Relax expressions; use R.logical_{op}")
            if not (prim.is_num(v) or isinstance(v, P.PrimExpr)):
                raise self.error(node, f"'{op}' needs boolean scalars, got {prim.describe(v)}")
        acc = vals[0]
        for v in vals[1:]:
            acc = prim.binary(op, acc, v, self.span(node))
        return acc

    # -- subscripts ----------------------------------------------------------------------------
    def visit_Subscript(self, node: ast.Subscript) -> Any:
        base = self.eval_node(node.value)
        if isinstance(base, tir.Buffer):
            return self.buffer_subscript(base, node, region=False)
        if isinstance(base, Ref):
            return self.ref_subscript(base, node)
        if isinstance(base, InspectProxy) and base.field in ("shape", "strides"):
            from .relax_builtins import to_relax_expr

            axis = to_relax_expr(self, self.eval_node(node.slice), node.slice)
            op = "R.inspect.tensor_shape_i" if base.field == "shape" else "R.inspect.tensor_stride_i"
            return self.call_operator(op, [base.tensor, axis], {}, node, node)
        if isinstance(node.slice, ast.Slice):
            raise self.error(node.slice, "slices are only supported on TensorIR buffers")
        idx = self.eval_node(node.slice)
        if isinstance(base, MetadataTable):
            if not isinstance(idx, str) or idx not in base.tables:
                raise self.error(node, f"the metadata header has no entry {idx!r}")
            return MetadataList(idx, base.tables[idx])
        if isinstance(base, MetadataList):
            if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < len(base.items):
                raise self.error(node, f"metadata[{base.key!r}] has {len(base.items)} entries; index {idx!r} "
                                       f"is out of range")
            item = base.items[idx]
            if isinstance(item, rx.Constant):  # located at the reference, not at the header
                item = rx.Constant(item.data, span=self.span(node))
            return item
        if isinstance(base, rx.Expr):
            if self.mode != "relax":
                raise self.error(node, "Relax expressions cannot be used in this context")
            if not isinstance(idx, int) or isinstance(idx, bool):
                raise self.error(node.slice,
                                 f"a tuple index must be an integer literal, got {prim.describe(idx)}")
            if idx < 0:
                raise self.error(node.slice, "negative tuple indices are not supported")
            return rx.TupleGetItem(base, idx, span=self.span(node))
        if isinstance(base, (tuple, list)):
            if not isinstance(idx, int) or isinstance(idx, bool) or not -len(base) <= idx < len(base):
                raise self.error(node, f"index {idx!r} out of range")
            return base[idx]
        raise self.error(node, f"{prim.describe(base)} cannot be subscripted")

    def ref_subscript(self, base: Ref, node: ast.Subscript) -> Any:
        handler = HANDLERS.get(base.path + "[]")
        if handler is None:
            raise self.error(node, f"'{base.path}' cannot be subscripted")
        return handler(self, node)

    def buffer_subscript(self, buf: tir.Buffer, node: ast.Subscript, region: bool) -> Any:
        """``A[i, j]`` -> BufferLoad; with slices -> BufferRegion (only where a region is expected)."""
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) == 0:
            items = []
        has_slice = any(isinstance(i, ast.Slice) for i in items)
        indices = []
        for it in items:
            if isinstance(it, ast.Slice):
                if it.step is not None:
                    step = self.eval_node(it.step)
                    if not (isinstance(step, int) and step == 1):
                        raise self.error(it, "strided buffer slices are not supported")
                lo = self.eval_node(it.lower) if it.lower is not None else 0
                hi = self.eval_node(it.upper) if it.upper is not None else None
                indices.append(("slice", lo, hi, it))
            elif isinstance(it, ast.Starred):
                raise self.error(it, "starred buffer indices are not supported")
            else:
                indices.append(("index", self.eval_node(it), None, it))
        if len(indices) != len(buf.shape) and not (len(indices) == 0 and len(buf.shape) == 0):
            raise self.error(node, f"buffer '{buf.name}' has {len(buf.shape)} dimensions but is indexed with "
                                   f"{len(indices)} indices")
        if has_slice or region:
            from .tir_regions import make_region

            return make_region(self, buf, indices, node)
        vals = tuple(self.index_value(v, n) for _, v, _, n in indices)
        if buf.dtype in ("void", ""):
            raise self.error(node, f"buffer '{buf.name}' has dtype void: it has no elements to load (TIR.BUF.7)")
        return tir.BufferLoad(buf, vals)

    def index_value(self, v: Any, node: ast.AST) -> P.PrimExpr:
        if isinstance(v, bool) or not (isinstance(v, (int, P.PrimExpr))):
            raise self.error(node, f"a buffer index must be an integer expression, got {prim.describe(v)}")
        pv = prim.as_prim(v, self.span(node))
        if not (pv.dtype.startswith("int") or pv.dtype.startswith("uint")):
            raise self.error(node, f"a buffer index must be an integer expression, got dtype {pv.dtype}")
        return pv

    # -- calls ---------------------------------------------------------------------------------
    def call_argument(self, node: ast.AST) -> Any:
        """A call argument; a ``lambda i, j: (...)`` there (``R.layout_transform(x, index_map=lambda i:
        ...)``, as TVM accepts it) is an index map over int64 indices (TEXT.INDEXMAP.1). Lambdas
        anywhere else are refused."""
        if isinstance(node, ast.Lambda):
            return self.lambda_index_map(node, "int64")
        return self.eval_node(node)

    def call_info(self, node: ast.Call, path: str) -> CallInfo:
        args: List[Any] = []
        arg_nodes: List[ast.AST] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval_node(a.value)
                if not isinstance(v, (tuple, list)):
                    raise self.error(a, "only a tuple or list can be unpacked with '*' in a call")
                args.extend(v)
                arg_nodes.extend([a] * len(v))
            else:
                args.append(self.call_argument(a))
                arg_nodes.append(a)
        kwargs: Dict[str, Any] = {}
        kw_nodes: Dict[str, ast.AST] = {}
        relax_call = path.startswith("R.")
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error(kw.value, "keyword-argument unpacking (**) is not supported")
            name = KEYWORD_ALIASES.get(kw.arg, kw.arg) if relax_call else kw.arg
            if name in kwargs:
                raise self.error(kw.value, f"{path} got multiple values for argument '{name}' ('{kw.arg}')")
            kwargs[name] = self.call_argument(kw.value)
            kw_nodes[name] = kw.value
        return CallInfo(node, path, args, kwargs, arg_nodes, kw_nodes)

    def visit_Call(self, node: ast.Call) -> Any:
        fn = self.eval_node(node.func)
        if isinstance(fn, Ref):
            path = fn.path
            if path == "T.index_map":
                return self.index_map(node)
            handler = HANDLERS.get(path)
            if handler is not None:
                return handler(self, self.call_info(node, path))
            if path in STATEMENT_ONLY:
                raise self.error(node, STATEMENT_ONLY[path])
            if path.startswith("T.") and path[2:] in prim.INTRINSICS:
                info = self.call_info(node, path)
                # TVM's T.* wrappers accept and drop a dtype= keyword (T.exp(x, dtype="float32"))
                if set(info.kwargs) - {"dtype"}:
                    raise self.error(node, f"{path} takes no keyword arguments other than dtype")
                return prim.intrinsic(path[2:], info.args, self.span(node), self.int_dtype)
            if path.startswith("R."):
                if self.mode != "relax":
                    raise self.error(node, f"Relax operator {path} cannot be used in this context")
                info = self.call_info(node, path)
                return self.call_operator(path, info.args, info.kwargs, node, node.func)
            raise self.error(node.func, f"unknown TVMScript function '{path}'")
        if isinstance(fn, InspectProxy) and fn.field == "astype" and self.mode == "relax":
            info = self.call_info(node, "R.astype")
            return self.call_operator("R.astype", [fn.tensor] + list(info.args), info.kwargs, node, node.func)
        if isinstance(fn, BufferMethod):
            from .tir_builtins import buffer_view

            return buffer_view(self, self.call_info(node, f"{fn.buffer.name}.{fn.name}"), fn.buffer)
        if isinstance(fn, rx.Expr) and not isinstance(fn, (rx.Constant, rx.ShapeExpr, rx.PrimValue,
                                                            rx.StringImm, rx.DataTypeImm)):
            if self.mode != "relax":
                raise self.error(node, "Relax functions cannot be called in this context")
            return self.relax_function_call(fn, node)
        raise self.error(node.func, f"{prim.describe(fn)} is not callable")

    def index_map(self, node: ast.Call) -> Any:
        """``T.index_map(lambda i, j: (j // 4, i, j % 4), index_dtype="int64")`` (TEXT.INDEXMAP.1).

        The lambda is data, never a Python function: each parameter becomes a fresh ``index_dtype``
        PrimVar bound in a new scope, and the body is evaluated as scalar expressions over them."""
        if len(node.args) != 1 or not isinstance(node.args[0], ast.Lambda):
            raise self.error(node, "T.index_map takes exactly one lambda expression")
        index_dtype = "int64"
        for kw in node.keywords:
            if kw.arg == "index_dtype":
                v = self.eval_node(kw.value)
                if not isinstance(v, str) or v not in ("int32", "int64"):
                    raise self.error(kw.value, "index_dtype must be \"int32\" or \"int64\"")
                index_dtype = v
            elif kw.arg == "inverse_index_map" and isinstance(kw.value, ast.Constant) and kw.value.value is None:
                continue
            else:
                raise self.error(kw.value if kw.arg else node, f"T.index_map got an unsupported keyword "
                                                                f"argument '{kw.arg}'")
        return self.lambda_index_map(node.args[0], index_dtype)

    def lambda_index_map(self, lam: ast.Lambda, index_dtype: str) -> Any:
        """The IndexMap a lambda describes: its parameters are fresh ``index_dtype`` variables and its
        body is evaluated as scalar expressions over them (never run as Python)."""
        from ...ops.layout_transform import IndexMap

        a = lam.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.kw_defaults or a.posonlyargs:
            raise self.error(lam, "an index-map lambda takes plain positional parameters only")
        scope = self.scope.child("index_map")
        params = []
        for arg_node in a.args:
            if arg_node.annotation is not None:
                raise self.error(arg_node, "index-map parameters take no annotation")
            v = P.PrimVar(arg_node.arg, index_dtype)
            scope.define(arg_node.arg, v)
            params.append(v)
        ev = Evaluator(self.ctx, scope, "tir", self.src)
        body = lam.body
        items = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
        finals = []
        for item in items:
            v = ev.eval_node(item)
            if isinstance(v, bool) or not isinstance(v, (int, P.PrimExpr)):
                raise self.error(item, f"an index map must produce integer expressions, got {prim.describe(v)}")
            if isinstance(v, int):
                v = P.IntImm(v, index_dtype)
            elif v.dtype != index_dtype and not v.dtype.startswith("int"):
                raise self.error(item, f"an index map must produce integer expressions, got dtype {v.dtype}")
            finals.append(v)
        return IndexMap(tuple(params), tuple(finals))

    def relax_function_call(self, fn: rx.Expr, node: ast.Call) -> rx.Call:
        from .relax_builtins import to_relax_expr

        if node.keywords:
            raise self.error(node.keywords[0].value, "calls of Relax functions take no keyword arguments")
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error(a, "starred arguments are not supported in calls of Relax functions")
            v = self.eval_node(a)

            args.append(to_relax_expr(self, v, a))
        return rx.Call(fn, tuple(args), span=self.span(node))

    def dist_attrs(self, args: List[Any], kwargs: Dict[str, Any], node: ast.AST):
        """``device_mesh="mesh[0]"`` names a module mesh and ``placement="S[0], R"`` is read as a
        placement (DIST.TEXT.4), given by keyword or as the second and third arguments."""
        from ...errors import StructInfoError
        from ...ir.distributed import Placement

        args = list(args)
        for i, key in ((1, "device_mesh"), (2, "placement")):
            where, k = (args, i) if len(args) > i else (kwargs, key)
            if where is kwargs and key not in kwargs:
                continue
            v = where[k]
            if key == "device_mesh" and isinstance(v, str):
                where[k] = self.ctx.lookup_mesh(v, node)
            elif key == "placement" and isinstance(v, str):
                try:
                    where[k] = Placement.from_text(v)
                except StructInfoError as e:
                    raise self.error(node, e.message) from None
        return args, kwargs

    def call_operator(self, script: str, args: List[Any], kwargs: Dict[str, Any], node: ast.AST,
                      callee_node: ast.AST) -> rx.Call:
        """Build a registered operator call (contract point 10)."""
        from ...ops import registry
        from .struct_info import convert_proxies

        if script == "R.dist.call_tir":   # a call_tir whose outputs are DTensors (DIST.TEXT.4)
            script = "R.call_tir"
        opdef = registry.lookup_script(script)
        if opdef is None:
            raise self.error(callee_node, f"unknown Relax operator '{script}'"
                                          f"{did_you_mean(script, registry.script_names())}")
        span = self.span(node)
        args = [convert_proxies(self, a, node) for a in args]
        kwargs = {k: convert_proxies(self, v, node) for k, v in kwargs.items()}
        if opdef.parse_call is None:
            args, kwargs = self.scalar_arguments(opdef, args, kwargs, node)
        elif opdef.name in ("relax.assert_op", "relax.print"):
            # the condition and the format arguments are Relax values (``R.assert_op(n % 16 == 0, n)``)
            from .relax_builtins import to_relax_expr

            def scalar(a):
                if isinstance(a, (list, tuple)):  # R.assert_op(c, [16, n], format=...)
                    return type(a)(scalar(x) for x in a)
                if (prim.is_num(a) and not isinstance(a, bool)) or isinstance(a, P.PrimExpr):
                    return to_relax_expr(self, a, node)
                return a

            args = [scalar(a) for a in args]
        if opdef.extra.get("dist_attrs"):
            args, kwargs = self.dist_attrs(args, kwargs, node)
        if opdef.name == "relax.to_vdevice":
            # the device string names a declared virtual device, as in struct info (TEXT.MOD.4)
            if len(args) > 1 and isinstance(args[1], str):
                args[1] = self.ctx.lookup_vdevice(args[1], node)
            if isinstance(kwargs.get("dst_vdevice"), str):
                kwargs["dst_vdevice"] = self.ctx.lookup_vdevice(kwargs["dst_vdevice"], node)
        try:
            call = registry.build_call(opdef, args, kwargs, span)
        except ParseError as e:
            raise e.with_span(span)
        except RelaxError as e:
            raise ParseError(f"{script}: {e.message}", span) from None
        except (TypeError, ValueError, IndexError, KeyError) as e:
            raise ParseError(f"invalid arguments for {script}: {e}", span) from None
        return call

    def scalar_arguments(self, opdef, args: List[Any], kwargs: Dict[str, Any], node: ast.AST):
        """A number or scalar expression passed to a Relax operand is that scalar value, as tvm-0.27
        writes it (``R.take(x, 0)``): an ``int64`` / ``float64`` / ``bool`` ``PrimValue``
        (TEXT.DIALECT.3; tvm-0.25 rejects it, so every dialect reads it so)."""
        params = list(opdef.params)
        span = self.span(node)

        def conv(p, v):
            if p.kind != "arg" or p.conv not in ("expr", "optional_expr"):
                return v
            if isinstance(v, P.PrimExpr):
                return rx.PrimValue(v, span=span)
            if isinstance(v, bool):
                return rx.PrimValue(P.IntImm(int(v), "bool"), span=span)
            if isinstance(v, int):
                return rx.PrimValue(prim.lit(v, "int64", span), span=span)
            if isinstance(v, float):
                return rx.PrimValue(P.FloatImm(v, "float64"), span=span)
            return v

        args = [conv(p, v) for p, v in zip(params, args)] + list(args[len(params):])
        by_name = {p.name: p for p in params}
        kwargs = {k: conv(by_name[k], v) if k in by_name else v for k, v in kwargs.items()}
        return args, kwargs

    def eval_ref(self, node: ast.AST) -> Optional[str]:
        """The canonical path if ``node`` is a (dotted) name resolving to a Ref, else None. Only
        names and attributes are evaluated, so this has no effect beyond look-ups."""
        if isinstance(node, (ast.Name, ast.Attribute)):
            try:
                v = self.eval_node(node)
            except ParseError:
                return None
            if isinstance(v, Ref):
                return v.path
        return None


__all__ = ["HANDLERS", "STATEMENT_ONLY", "CallInfo", "Evaluator", "bind_params", "REQUIRED",
           "RELAX_SUGAR"]
