"""Printing of struct info annotations (spec rules TEXT.SI.*).

``R.Object``; ``R.Prim("int64")`` / ``R.Prim(value=n)``; ``R.Shape([n, 4])`` / ``R.Shape(ndim=2)``;
``R.Tensor((n, 4), dtype="float32")`` / ``R.Tensor(dtype="float32", ndim=2)`` / ``R.Tensor`` with an
optional ``vdevice="kind:index:scope"``; ``R.Tuple(...)`` (``R.Tuple`` for unit);
``R.Callable((params), ret, purity)`` / ``R.Callable(ret=..., purity=..., derive_func=...)``.

Inside a function signature (parameter and return annotations of a top-level function), an entry
that mentions a symbolic variable introduced by the signature is printed as a string --
``R.Tensor(("n", 4))``, ``R.Shape(["n * 2"])``, ``R.Prim(value="k")`` -- which is how TVMScript
defines symbolic variables (TEXT.SI.2).
"""

from __future__ import annotations

from ...errors import UnsupportedError
from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import struct_info as si
from ...ir.distributed import DeviceMesh, DTensorStructInfo
from ...ir.functor import prim_vars_in
from ._format import format_str
from .context import PrintContext
from .prim import PrimPrinter


class StructInfoPrinter:
    def __init__(self, ctx: PrintContext, relax_var_name=None) -> None:
        self.ctx = ctx
        self.prim = PrimPrinter(ctx.dialect, "relax", ctx.relax_prim_var)
        self.relax_var_name = relax_var_name or (lambda v: v.name_hint)

    def dim(self, e) -> str:
        """A shape entry or prim value, stringified when it mentions a signature variable (except, in
        tvm-0.27, a bare module-level TypeVar or scalar parameter)."""
        text = self.prim(e)
        sig = self.ctx.signature_vars
        if sig is not None and any(v in sig for v in prim_vars_in(e)):
            if self.ctx.dialect.typevar_symbols and isinstance(e, P.PrimVar) and (
                    text in self.ctx.typevars or e in self.ctx.param_symbols):
                return text
            return format_str(text)
        return text

    def vdevice(self, vd: si.VDevice) -> str:
        index = vd.vdevice_id
        devices = self.ctx.vdevices
        if vd in devices:
            index = [d for d in devices if d.kind == vd.kind].index(vd)
        return f"{vd.kind}:{index}:{vd.memory_scope}"

    def mesh(self, m: DeviceMesh, in_module_infos: bool = False) -> str:
        """A device mesh: its name ``"mesh[i]"`` inside a function of a module that declares it, else
        ``R.device_mesh(shape, R.Range(b, e))`` (``I.Range`` in the global infos) or with the id list
        (DIST.TEXT.3)."""
        mod = self.ctx.module
        if mod is not None and not in_module_infos:
            for key, infos in sorted(mod.global_infos.items()):
                if isinstance(infos, tuple) and m in infos:
                    return format_str(f"{key}[{infos.index(m)}]")
        shape = "(" + ", ".join(str(d) for d in m.shape) + ("," if len(m.shape) == 1 else "") + ")"
        if m.device_range is not None:
            ns = "I" if in_module_infos else "R"
            self.ctx.used_ns.add(ns)
            return f"R.device_mesh({shape}, {ns}.Range({m.device_range[0]}, {m.device_range[0] + m.device_range[1]}))"
        return f"R.device_mesh({shape}, [{', '.join(str(i) for i in m.device_ids)}])"

    def dtensor(self, s: DTensorStructInfo) -> str:
        """``R.DTensor(shape, dtype, mesh, placement)``; keywords from the first unknown part on, as
        TVM prints it (DIST.TEXT.3)."""
        args, kwargs = [], []
        if isinstance(s.shape, rx.ShapeExpr):
            dims = [self.dim(v) for v in s.shape.values]
            args.append("(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")")
        elif s.shape is not None:
            args.append(self.relax_var_name(s.shape))
        use_kw = s.shape is None
        if s.dtype != "void":
            (kwargs.append(f'dtype="{s.dtype}"') if use_kw else args.append(f'"{s.dtype}"'))
        else:
            use_kw = True
        mesh, placement = self.mesh(s.device_mesh), format_str(str(s.placement))
        if use_kw:
            kwargs += [f"device_mesh={mesh}", f"placement={placement}"]
        else:
            args += [mesh, placement]
        if s.shape is None and s.ndim != -1:
            kwargs.append(f"ndim={s.ndim}")
        return f"R.DTensor({', '.join(args + kwargs)})"

    def __call__(self, s: si.StructInfo, nested: bool = False) -> str:
        self.ctx.used_ns.add("R")
        d = self.ctx.dialect
        if isinstance(s, si.ObjectStructInfo):
            return d.object_sinfo
        if isinstance(s, si.PrimStructInfo):
            if d.prim_annotation == "T":
                # tvm-0.27 annotates the dtype only (TEXT.DIALECT.5); inside R.Tuple / R.Callable and in
                # ty_args TVM 0.27 reads only R.Prim("int64") (its own T.int64 there fails to parse)
                if s.value is not None and self.ctx.exact:
                    raise UnsupportedError(f"{d.name} annotates a scalar by its dtype only: the value of "
                                           f"R.Prim(value={self.prim(s.value)}) cannot be written")
                if nested:
                    return f'R.Prim("{s.dtype}")'
                self.ctx.used_ns.add("T")
                return f"T.{s.dtype}"
            if s.value is not None:
                return f"R.Prim(value={self.dim(s.value)})"
            return f'R.Prim("{s.dtype}")'
        if isinstance(s, si.ShapeStructInfo):
            if s.values is not None:
                return f"R.Shape([{', '.join(self.dim(v) for v in s.values)}])"
            return f"R.Shape(ndim={s.ndim})"
        if isinstance(s, DTensorStructInfo):
            return self.dtensor(s)
        if isinstance(s, si.TensorStructInfo):
            parts = []
            if isinstance(s.shape, rx.ShapeExpr):
                dims = [self.dim(v) for v in s.shape.values]
                parts.append("(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")")
            elif s.shape is not None:
                parts.append(self.relax_var_name(s.shape))
            if s.dtype != "void":
                parts.append(f'dtype="{s.dtype}"')
            if s.shape is None and s.ndim != -1:
                parts.append(f"ndim={s.ndim}")
            if s.vdevice is not None:
                parts.append(f'vdevice="{self.vdevice(s.vdevice)}"')
            return f"R.Tensor({', '.join(parts)})" if parts else "R.Tensor"
        if isinstance(s, si.TupleStructInfo):
            if not s.fields:
                return "R.Tuple"
            return f"R.Tuple({', '.join(self(f, True) for f in s.fields)})"
        if isinstance(s, si.FuncStructInfo):
            purity = "True" if s.purity else "False"
            if s.params is None:
                kw = []
                if not isinstance(s.ret, si.ObjectStructInfo) and s.derive_func is None:
                    kw.append(f"ret={self(s.ret, True)}")  # TVM: a derive_func excludes ret
                if s.purity:
                    kw.append("purity=True")
                if s.derive_func is not None:
                    kw.append(f"derive_func={format_str(s.derive_func)}")
                return f"R.Callable({', '.join(kw)})" if kw else "R.Callable"
            params = [self(p, True) for p in s.params]
            ptext = "(" + ", ".join(params) + ("," if len(params) == 1 else "") + ")"
            return f"R.Callable({ptext}, {self(s.ret, True)}, {purity})"
        raise UnsupportedError(f"cannot print struct info {type(s).__name__}")


def struct_info_to_str(s: si.StructInfo) -> str:
    """Standalone rendering of struct info (used by ``StructInfo.__str__`` and error messages):
    symbolic variables print under their name hints."""
    from .dialect import CLASSIC

    return StructInfoPrinter(PrintContext(CLASSIC))(s)


__all__ = ["StructInfoPrinter", "struct_info_to_str"]
