"""Top level of a TVMScript text: the header, the metadata header, module-level symbolic variable
declarations, one ``@I.ir_module`` class or standalone ``@R.function`` / ``@T.prim_func``
definitions (TEXT.MOD.2-4).

Module class: ``I.module_attrs({...})`` and ``I.module_global_infos({"vdevice": [I.vdevice(...)]})``
are read first; every function gets its GlobalVar before any body is parsed, so functions may refer
to each other in any order as ``Module.f`` or through the alias ``cls = Module``. Standalone
functions form a module of their own, one GlobalVar per function name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ...errors import ParseError
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir.attrs import Attrs
from ...ir.module import IRModule
from ...ir.distributed import DeviceMesh
from ...ir.struct_info import VDevice
from .evaluator import HANDLERS, REQUIRED, CallInfo, Evaluator, bind_params
from ..dialect import get_dialect
from .function_options import bool_option, function_options
from .header import detect_dialect, detect_relax_dialect, read_header
from .metadata import decode_metadata
from .relax_func import RelaxFunctionParser, call_path, check_attr_value
from .scope import Scope
from .source import Source, parse_python
from .tir_func import PrimFuncParser
from .values import GlobalSymDecl, MetadataTable, ModuleRef, Ref, TypeVarDecl, VarDecl

# the handler modules register themselves on import
from . import prim_builtins as _prim_builtins  # noqa: F401,E402
from . import relax_builtins as _relax_builtins  # noqa: F401,E402
from . import tir_builtins as _tir_builtins  # noqa: F401,E402
from . import tir_intrinsics as _tir_intrinsics  # noqa: F401,E402
from . import dist_builtins as _dist_builtins  # noqa: F401,E402


class ParseContext:
    """State shared by every function of one text."""

    def __init__(self, src: Source, aliases: Mapping[str, str], dialect: str, relax_dialect: str = "tvm-0.25") -> None:
        self.src = src
        #: the TensorIR spelling: "classic" or "tvm" (header.detect_dialect)
        self.dialect = dialect
        #: the Relax semantics where releases differ (TEXT.DIALECT.2): TVM025 or TVM027
        self.relax_dialect = get_dialect(relax_dialect)
        self.root_scope = Scope(kind="module")
        for alias, root in aliases.items():
            self.root_scope.define(alias, Ref(root))
        self.root_scope.define("range", Ref("range"))
        self.root_scope.define("float", Ref("float"))
        for name in ("tvm", "TypeVar", "int"):  # int: the bound of a TypeVar (refused with its reason)
            if not self.root_scope.contains(name):
                self.root_scope.define(name, Ref(name))
        self.vdevices: Optional[Tuple[VDevice, ...]] = None
        #: the module's global infos, read before any function (device meshes are named from them)
        self.global_infos: Dict[str, Any] = {}
        self.loop_domains: Dict[int, Any] = {}
        self.check_well_formed = True
        self.decorator_options = False
        #: the variables bound by Relax expression statements; the normalizer rejects a non-unit
        #: value bound to one of them (TEXT.STMT.6)
        self.unit_statements: List[rx.Var] = []

    def instantiate_global_sym(self, scope: Scope, decl: GlobalSymDecl) -> P.PrimVar:
        """A module-level ``n = T.int64()`` gives each function its own variable ``n``."""
        frame = scope.nearest("function")
        var = P.PrimVar(decl.name, decl.dtype)
        if frame is not None:
            frame.define(decl.name, var)
        return var

    def loop_domain(self, v: Any):
        entry = self.loop_domains.get(id(v))
        if entry is None or entry[0] is not v:
            return None
        return entry[1]

    def lookup_mesh(self, text: str, node: ast.AST) -> DeviceMesh:
        """``"name[i]"``: the i-th entry of the module's global info ``name``, which must be a device
        mesh (DIST.TEXT.2)."""
        name, _, rest = text.partition("[")
        index = rest[:-1] if rest.endswith("]") else ""
        if not (name.isidentifier() and index.isdigit() and index.isascii()):
            raise self.src.error(node, f"a device mesh is named \"name[index]\" (e.g. \"mesh[0]\"), got {text!r}")
        infos = self.global_infos.get(name)
        if infos is None:
            known = ", ".join(sorted(self.global_infos)) or "none"
            raise self.src.error(node, f"the device mesh {text!r} names the global info '{name}', which the module "
                                       f"does not declare (declared: {known}) (DIST.TEXT.2)")
        if not isinstance(infos, tuple) or int(index) >= len(infos):
            raise self.src.error(node, f"the device mesh {text!r} is out of range: the global info '{name}' has "
                                       f"{len(infos) if isinstance(infos, tuple) else 1} entries (DIST.TEXT.2)")
        mesh = infos[int(index)]
        if not isinstance(mesh, DeviceMesh):
            raise self.src.error(node, f"the global info {text!r} is not a device mesh (DIST.TEXT.2)")
        return mesh

    def lookup_vdevice(self, text: str, node: ast.AST) -> VDevice:
        """``"kind[:index[:scope]]"``: with declared module vdevices, the index-th declared device of that
        kind (TVM's look-up; the written scope is ignored, the declaration's is kept); otherwise a
        VDevice built from the string (TEXT.MOD.4). Used for struct info and ``R.to_vdevice``."""
        from ...ops.core import parse_vdevice

        kind, _, rest = text.partition(":")
        if kind == "vdevice" and self.vdevices:
            # "vdevice:i" is the i-th declared device whatever its kind (TVM's LookupVDevice)
            index = rest.partition(":")[0]
            if index.isdigit() and int(index) < len(self.vdevices):
                return self.vdevices[int(index)]
        try:
            return parse_vdevice(text, None, self.vdevices)
        except ParseError as e:
            raise self.src.error(node, e.message) from None


def _vdevice(ev: Evaluator, info: CallInfo) -> VDevice:
    b = bind_params(ev, info, (("target", REQUIRED), ("vdevice_id", 0), ("memory_scope", "global")))
    t = b["target"]
    if isinstance(t, str):
        kind = t.split()[0] if t.split() else ""
    elif isinstance(t, dict) and isinstance(t.get("kind"), str):
        kind = t["kind"]
    else:
        raise ev.error(info.node, "I.vdevice expects a target kind string or a target dict with \"kind\"")
    if not kind:
        raise ev.error(info.node, "I.vdevice: empty target")
    vid = b["vdevice_id"]
    if isinstance(vid, bool) or not isinstance(vid, int):
        raise ev.error(info.node, "I.vdevice: vdevice_id must be an integer")
    if not isinstance(b["memory_scope"], str):
        raise ev.error(info.node, "I.vdevice: memory_scope must be a string")
    return VDevice(kind, vid, b["memory_scope"])


HANDLERS["I.vdevice"] = _vdevice


def _is_metadata_assign(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], ast.Name) and node.targets[0].id == "metadata"


def _metadata_json(ctx: ParseContext, node: ast.Assign) -> str:
    v = node.value
    ok = isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "load_json" and \
        isinstance(v.func.value, ast.Attribute) and v.func.value.attr == "ir" and \
        isinstance(v.func.value.value, ast.Name) and len(v.args) == 1 and not v.keywords and \
        isinstance(v.args[0], ast.Constant) and isinstance(v.args[0].value, str)
    if not ok:
        raise ctx.src.error(node, "the metadata header must be metadata = tvm.ir.load_json(\"\"\"...\"\"\")")
    return v.args[0].value


@dataclass
class ParseResult:
    module: IRModule
    check_well_formed: bool
    function_names: List[str]
    unit_statements: Tuple[rx.Var, ...] = ()


def parse_source(src: Source, *, extra_aliases: Optional[Mapping[str, str]] = None,
                 global_decls: Optional[Mapping[str, str]] = None, decorator_options: bool = False) -> ParseResult:
    """Parse a whole text into raw IR (no normalization)."""
    tree = parse_python(src)
    header = read_header(tree, src)
    if extra_aliases:
        header.aliases.update(extra_aliases)
    ctx = ParseContext(src, header.aliases, detect_dialect(tree, header),
                       detect_relax_dialect(tree, header, src.text))
    ctx.decorator_options = decorator_options
    for name, dtype in (global_decls or {}).items():
        ctx.root_scope.define(name, GlobalSymDecl(name, dtype))
    ev = Evaluator(ctx, ctx.root_scope, "module")
    classes: List[ast.ClassDef] = []
    funcs: List[ast.FunctionDef] = []
    seen_meta = False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if _is_metadata_assign(node):
            if seen_meta:
                raise src.error(node, "the metadata header appears twice")
            seen_meta = True
            tables = decode_metadata(_metadata_json(ctx, node), src.span(node))
            ctx.root_scope.define("metadata", MetadataTable(tables))
        elif isinstance(node, ast.Assign):
            _global_decl(ctx, ev, node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            continue
        elif isinstance(node, ast.ClassDef):
            classes.append(node)
        elif isinstance(node, ast.FunctionDef):
            funcs.append(node)
        else:
            raise src.error(node, "only imports, the metadata header, symbolic variable declarations, one "
                                  "@I.ir_module class or @R.function / @T.prim_func definitions may appear at "
                                  "the top level")
    if classes and funcs:
        raise src.error(funcs[0], "a text holds either one @I.ir_module class or standalone functions, not both")
    if len(classes) > 1:
        raise src.error(classes[1], "a text may define only one @I.ir_module class")
    if classes:
        return _parse_class(ctx, ev, classes[0])
    if not funcs:
        where = tree.body[-1] if tree.body else None
        raise src.error(where, "the text defines no @I.ir_module class and no function").with_span(
            src.span_at(1, 0))
    return _parse_functions(ctx, ev, funcs)


def _global_decl(ctx: ParseContext, ev: Evaluator, node: ast.Assign) -> None:
    if len(node.targets) != 1:
        raise ctx.src.error(node, "chained assignments are not supported")
    target = node.targets[0]
    names = [target] if isinstance(target, ast.Name) else list(target.elts) \
        if isinstance(target, (ast.Tuple, ast.List)) else []
    value = ev.eval_node(node.value) if names and all(isinstance(n, ast.Name) for n in names) else None
    values = [value] if isinstance(target, ast.Name) else list(value) if isinstance(value, (tuple, list)) else []
    if len(values) != len(names) or not all(isinstance(v, VarDecl) for v in values) or not names:
        raise ctx.src.error(node, "only symbolic variable declarations such as 'n = T.int64()' are allowed at "
                                  "the top level")
    for n, v in zip(names, values):
        if isinstance(v, TypeVarDecl) and v.name != n.id:
            raise ctx.src.error(node, f"TypeVar binding '{n.id}' must match its declared name '{v.name}'",
                                symbol=n.id)
        ctx.root_scope.define(n.id, GlobalSymDecl(n.id, v.dtype))


def _parse_function(ctx: ParseContext, ev: Evaluator, node: ast.FunctionDef, scope: Scope):
    opts = function_options(ctx, ev, node)
    if opts.kind == "relax":
        return opts, RelaxFunctionParser(ctx, node, opts, scope).parse()
    return opts, PrimFuncParser(ctx, node, opts, scope).parse()


def _parse_functions(ctx: ParseContext, ev: Evaluator, funcs: List[ast.FunctionDef]) -> ParseResult:
    names = [f.name for f in funcs]
    for i, f in enumerate(funcs):
        if f.name in names[:i]:
            raise ctx.src.error(f, f"function '{f.name}' is defined twice")
    items = {}
    check = True
    gv_names = []
    for f in funcs:
        opts, fn = _parse_function(ctx, ev, f, ctx.root_scope)
        check = check and opts.check_well_formed
        # a standalone function is named by its global_symbol when it has one (TVM's
        # IRModule.from_expr), else by its definition (TEXT.MOD.3)
        symbol = fn.attrs.get("global_symbol")
        name = symbol if isinstance(symbol, str) and symbol else f.name
        if name in gv_names:
            raise ctx.src.error(f, f"function '{name}' is defined twice")
        gv_names.append(name)
        items[rx.GlobalVar(name, span=ctx.src.span(f))] = fn
    mod = IRModule(items)
    object.__setattr__(mod, "source_span", ctx.src.span(funcs[0]))  # IRModule is otherwise immutable
    return ParseResult(mod, check, gv_names, tuple(ctx.unit_statements))


def _class_options(ctx: ParseContext, ev: Evaluator, node: ast.ClassDef) -> bool:
    if len(node.decorator_list) != 1:
        raise ctx.src.error(node, f"class '{node.name}' needs the decorator @I.ir_module")
    dec = node.decorator_list[0]
    call = dec if isinstance(dec, ast.Call) else None
    path = ev.eval_ref(call.func if call is not None else dec)
    if path != "I.ir_module":
        raise ctx.src.error(dec, f"class '{node.name}' needs the decorator @I.ir_module")
    check = True
    if call is not None:
        if call.args:
            raise ctx.src.error(call.args[0], "@I.ir_module takes only keyword options")
        for kw in call.keywords:
            if kw.arg == "normalize" and ctx.decorator_options:
                bool_option(ev, kw, "@I.ir_module")
                continue
            if kw.arg == "s_tir":
                # TVM: verify the module's TensorIR in the s_tir mode; no effect on the IR (TEXT.MOD.2)
                bool_option(ev, kw, "@I.ir_module")
                continue
            if kw.arg != "check_well_formed":
                raise ctx.src.error(kw, f"@I.ir_module got an unexpected option '{kw.arg}'")
            check = bool_option(ev, kw, "@I.ir_module")
    if node.bases or node.keywords:
        raise ctx.src.error(node, "an @I.ir_module class cannot have base classes")
    return check


def _parse_class(ctx: ParseContext, ev: Evaluator, node: ast.ClassDef) -> ParseResult:
    check = _class_options(ctx, ev, node)
    mscope = ctx.root_scope.child("module")
    gvars: Dict[str, rx.GlobalVar] = {}
    fdefs: List[ast.FunctionDef] = []
    externs: Dict[str, ast.Assign] = {}
    order: List[str] = []
    for st in node.body:
        name = None
        if isinstance(st, ast.FunctionDef):
            name = st.name
            fdefs.append(st)
        elif _is_extern_member(ctx, st):
            name = st.targets[0].id
            externs[name] = st
        if name is not None:
            if name in gvars:
                raise ctx.src.error(st, f"function '{name}' is defined twice in the module")
            gvars[name] = rx.GlobalVar(name, span=ctx.src.span(st))
            order.append(name)
    mscope.define(node.name, ModuleRef(node.name, dict(gvars)))
    mev = Evaluator(ctx, mscope, "module")
    attrs: Dict[str, Any] = {}
    infos: Dict[str, Any] = {}
    extern_funcs: Dict[str, rx.ExternFunc] = {}
    for st in node.body:
        if isinstance(st, ast.FunctionDef):
            continue
        if isinstance(st, ast.Pass):
            continue
        if _is_extern_member(ctx, st):
            value = mev.eval_node(st.value)
            if not isinstance(value, rx.ExternFunc):
                raise ctx.src.error(st.value, "a module member assigned in the class body must be R.ExternFunc(...)")
            extern_funcs[st.targets[0].id] = value
            continue
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            continue
        path = call_path(mev, st.value) if isinstance(st, ast.Expr) else None
        if path in ("I.module_attrs", "I.module_global_infos"):
            info = mev.call_info(st.value, path)
            if len(info.args) != 1 or info.kwargs or not isinstance(info.args[0], dict):
                raise ctx.src.error(st, f"{path} expects one dict literal")
            for k, v in info.args[0].items():
                if not isinstance(k, str):
                    raise ctx.src.error(st, f"{path}: keys must be strings")
                if path == "I.module_attrs":
                    attrs[k] = check_attr_value(mev, v, st)
                else:
                    infos[k] = _global_info(ctx, st, k, v, mev)
                    ctx.global_infos[k] = infos[k]
            continue
        raise ctx.src.error(st, "an @I.ir_module class body holds only functions, name = R.ExternFunc(...) "
                                "declarations, I.module_attrs(...) and I.module_global_infos(...)")
    if "vdevice" in infos:
        ctx.vdevices = tuple(infos["vdevice"])
    parsed: Dict[str, Any] = dict(extern_funcs)
    for f in fdefs:
        _, fn = _parse_function(ctx, mev, f, mscope)
        parsed[f.name] = fn
    items = {gvars[n]: parsed[n] for n in order}
    mod = IRModule(items, Attrs(attrs), Attrs(infos))
    object.__setattr__(mod, "source_span", ctx.src.span(node))  # IRModule is otherwise immutable
    return ParseResult(mod, check, [f.name for f in fdefs], tuple(ctx.unit_statements))


def _is_extern_member(ctx: ParseContext, st: ast.stmt) -> bool:
    """``name = R.ExternFunc("symbol")`` in a module class body: an external function as a module
    member, as TVM prints it (TEXT.MOD.5)."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
            and isinstance(st.value, ast.Call)):
        return False
    f = st.value.func
    return isinstance(f, ast.Attribute) and f.attr == "ExternFunc" and isinstance(f.value, ast.Name) and \
        ctx.root_scope.lookup(f.value.id, None) == Ref("R")


def _global_info(ctx: ParseContext, st: ast.AST, key: str, v: Any, ev: Evaluator):
    if key == "vdevice":
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, VDevice) for x in v):
            raise ctx.src.error(st, "I.module_global_infos: \"vdevice\" must be a list of I.vdevice(...)")
        return tuple(v)
    if isinstance(v, (list, tuple)):
        return tuple(x if isinstance(x, DeviceMesh) else check_attr_value(ev, x, st) for x in v)
    if isinstance(v, DeviceMesh):
        raise ctx.src.error(st, f"I.module_global_infos: the entry \"{key}\" must be a list of device meshes "
                                f"(DIST.TEXT.2)")
    return check_attr_value(ev, v, st)


__all__ = ["ParseContext", "ParseResult", "parse_source", "function_options"]
