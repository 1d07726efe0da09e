"""Export of a Relax function to a portable artifact: ``jax.export`` with symbolic dimensions.

``export_function(exe, entry)`` traces ``entry`` once with ``jax.export`` shape polymorphism: every
symbolic variable of the Relax signature (``R.Tensor(("n", 4))``) becomes a dimension variable of the
same name, shared by all parameters, and a dimension written as an expression (``"n + 1"``,
``"2 * n"``) becomes the same dimension expression. The result, a ``jax.export.Exported``, runs at
any size that satisfies the signature: ``exe.export(entry)`` (:func:`export`) returns it serialized
(``jax.export.deserialize(data).call(*args)`` runs it in any process with JAX, no relax-ref needed),
:func:`stablehlo_text` and :func:`stablehlo_bytecode` give the StableHLO module (MLIR text, and the
portable artifact bytecode that StableHLO consumers read), and ``relax-ref export`` writes the three.

Constraints come from the signature: JAX assumes every dimension variable is at least 1 and checks
at call time that the arguments' shapes agree with the symbolic shapes (two parameters of extent
``n`` must have the same extent), and each signature dimension that is an expression must be
non-negative (``n - 2 >= 0`` for ``R.Tensor(("n - 2",))``). More constraints (``"n <= 4096"``,
``"n == 8 * k"``: the forms ``jax.export.symbolic_shape`` accepts) are passed with ``constraints=``.

What cannot export raises :class:`relax_ref.errors.UnsupportedError` naming the reason: a parameter
whose extents are not in the signature (unknown rank), shape and symbolic prim-value parameters (their
values are data, not dimensions), host-only constructs (packed functions, ``R.print``, data-dependent
shapes), run-time checks on data under ``checks="raise"`` (see :mod:`relax_jax.jaxfn`), and shape
arithmetic that has no dimension expression (:mod:`relax_jax.dims`). A size of 0 is outside
``jax.export``'s range of dimension variables (at least 1); such a call raises JAX's shape
assertion error.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import jax
import numpy as np

from relax_ref.errors import UnsupportedError
from relax_ref.ir import dtype as _dt
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir import struct_info as si
from relax_ref.ir.functor import prim_vars_in

from .dims import NotADimension, eval_dim

#: the calling convention of the artifact: ``jax.export`` serialization (flatbuffers)
SERIALIZATION = "jax.export"


def _entry_function(exe, entry: str) -> rx.Function:
    if entry not in exe.mod or not isinstance(exe.mod[entry], rx.Function):
        raise UnsupportedError(f"'{entry}' is not a Relax function of the module")
    return exe.mod[entry]


def _collect_vars(func: rx.Function) -> List[P.PrimVar]:
    """The symbolic variables of the parameters' tensor shapes, in order of first appearance."""
    seen: Dict[P.PrimVar, None] = {}

    def visit(s) -> None:
        if isinstance(s, si.TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
            for d in s.shape.values:
                for v in sorted(prim_vars_in(d), key=lambda v: v.name):
                    seen.setdefault(v, None)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)

    for p in func.params:
        visit(p.struct_info)
    return list(seen)


def _spec(s, where: str, dims: Dict[P.PrimVar, Any], fresh) -> Any:
    """The ``jax.ShapeDtypeStruct`` (or tuple of them) for a parameter of struct info ``s``."""
    if isinstance(s, si.TensorStructInfo):
        if s.dtype == "void":
            raise UnsupportedError(f"{where}: a tensor of unknown dtype cannot be exported")
        if isinstance(s.shape, rx.ShapeExpr):
            shape = []
            for i, d in enumerate(s.shape.values):
                try:
                    shape.append(eval_dim(d, dims))
                except NotADimension as err:
                    raise UnsupportedError(f"{where}: dimension {i} ({P.to_str(d)}): {err}") from None
        elif s.ndim >= 0:
            shape = [fresh(f"{where}_d{i}") for i in range(s.ndim)]
        else:
            raise UnsupportedError(f"{where}: a tensor of unknown rank cannot be exported")
        return jax.ShapeDtypeStruct(tuple(shape), _dt.to_numpy(s.dtype))
    if isinstance(s, si.TupleStructInfo):
        return tuple(_spec(f, f"{where}[{i}]", dims, fresh) for i, f in enumerate(s.fields))
    if isinstance(s, si.PrimStructInfo):
        if s.value is not None and prim_vars_in(s.value):
            raise UnsupportedError(f"{where}: a prim value that defines symbolic variables is data, not a "
                                   "dimension; it cannot be exported")
        return jax.ShapeDtypeStruct((), _dt.to_numpy(s.dtype))
    raise UnsupportedError(f"{where}: a parameter of kind {type(s).__name__} cannot be exported (tensors, "
                           "tuples of tensors and prim values can)")


def _signature_constraints(func: rx.Function) -> List[P.PrimExpr]:
    """Dimensions of the signature that are expressions (not a variable or a constant): each is a
    tensor extent, so it is non-negative."""
    out: List[P.PrimExpr] = []

    def visit(s) -> None:
        if isinstance(s, si.TensorStructInfo) and isinstance(s.shape, rx.ShapeExpr):
            for d in s.shape.values:
                if not isinstance(d, (P.PrimVar, P.IntImm)) and d not in out:
                    out.append(d)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)

    for p in func.params:
        visit(p.struct_info)
    return out


def _symbol_name(name: str, taken: set) -> str:
    """``name`` as a dimension variable of ``jax.export`` (an identifier not yet taken)."""
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "d"
    if not (base[0].isalpha() or base[0] == "_"):
        base = "d_" + base
    out, k = base, 1
    while out in taken:
        out, k = f"{base}_{k}", k + 1
    taken.add(out)
    return out


def _dims_in(scope, names: Dict[P.PrimVar, str]) -> Dict[P.PrimVar, Any]:
    return {v: jax.export.symbolic_shape(n, scope=scope)[0] for v, n in names.items()}


def argument_specs(exe, entry: str = "main", *, constraints: Sequence[str] = ()) -> tuple:
    """The symbolic argument specs of ``entry``: ``jax.ShapeDtypeStruct`` whose shapes hold the
    signature's dimension variables (one scope, with the signature's and the given constraints)."""
    func = _entry_function(exe, entry)
    taken: set = set()
    names = {v: _symbol_name(v.name, taken) for v in _collect_vars(func)}
    scratch = _dims_in(jax.export.SymbolicScope(), names)
    derived = []
    for d in _signature_constraints(func):
        try:
            e = eval_dim(d, scratch)
        except NotADimension:
            continue  # _spec reports it
        if not isinstance(e, int) and not any(e == x for x in scratch.values()):
            derived.append(f"{e} >= 0")
    try:
        scope = jax.export.SymbolicScope(derived + list(constraints))
    except ValueError as err:
        raise UnsupportedError(f"'{entry}': a constraint cannot be read by jax.export: {err}") from None
    dims = _dims_in(scope, names)

    def fresh(hint: str):
        return jax.export.symbolic_shape(_symbol_name(hint, taken), scope=scope)[0]

    return tuple(_spec(p.struct_info, p.name_hint or f"arg{i}", dims, fresh) for i, p in enumerate(func.params))


def export_function(exe, entry: str = "main", *, constraints: Sequence[str] = (), checks: str = "raise",
                    platforms: Optional[Sequence[str]] = None) -> "jax.export.Exported":
    """``entry`` of the executable ``exe`` as a ``jax.export.Exported`` with symbolic dimensions (see the
    module docstring). ``platforms``: the lowering platforms (default: the executable's device's)."""
    if checks not in ("raise", "off"):
        raise UnsupportedError(f"export: checks must be 'raise' or 'off', got {checks!r}")
    specs = argument_specs(exe, entry, constraints=constraints)
    fn = jax.jit(exe.as_jax_function(entry, checks=checks))
    if platforms is None and getattr(exe, "device", None) is not None:
        platforms = (exe.device.platform,)
    x64 = any(_is_64bit(s) for s in jax.tree_util.tree_leaves(specs))
    with (jax.enable_x64(True) if x64 and not jax.config.jax_enable_x64 else _Null()):
        try:
            return jax.export.export(fn, platforms=platforms)(*specs)
        except UnsupportedError as err:
            if "run-time checks on data" in err.message:
                err.message = err.message.replace("use checks='checkify' or checks='off'", "an exported function "
                                                  "cannot raise: export with checks='off' (relax-ref export "
                                                  "--checks off) to drop them")
            raise
        except Exception as err:  # noqa: BLE001 - jax's shape-polymorphism errors become ours
            if type(err).__name__ in ("InconclusiveDimensionOperation", "UnexpectedDimVar"):
                raise UnsupportedError(f"'{entry}' cannot be exported with symbolic dimensions: "
                                       f"{str(err).splitlines()[0]}", function=entry) from None
            raise


def _is_64bit(s: Any) -> bool:
    return np.dtype(s.dtype).itemsize == 8 and np.dtype(s.dtype).kind in "iuf"


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def export(exe, entry: str = "main", **kwargs) -> bytes:
    """``entry`` exported (:func:`export_function`) and serialized: bytes that
    ``jax.export.deserialize`` reads back into a callable ``Exported``. Serialization needs the
    ``flatbuffers`` package (a dependency of relax-ref)."""
    return bytes(export_function(exe, entry, **kwargs).serialize())


def deserialize(data: bytes) -> "jax.export.Exported":
    """An artifact of :func:`export` read back (``.call(*args)`` runs it, ``.in_avals`` its signature)."""
    return jax.export.deserialize(bytearray(data))


def stablehlo_text(exported: "jax.export.Exported") -> str:
    """The StableHLO module as MLIR text."""
    return exported.mlir_module()


def stablehlo_bytecode(exported: "jax.export.Exported") -> bytes:
    """The StableHLO module as a portable artifact (versioned MLIR bytecode)."""
    return bytes(exported.mlir_module_serialized)


def write_artifacts(exe, entry: str, out: str, *, constraints: Sequence[str] = (),
                    checks: str = "raise") -> Dict[str, str]:
    """Write ``OUT`` (StableHLO text), ``OUT.mlirbc`` (StableHLO bytecode) and ``OUT.jax`` (the
    serialized ``jax.export`` artifact); returns what was written, by kind."""
    return _write(export_function(exe, entry, constraints=constraints, checks=checks), out)


def _write(exported: "jax.export.Exported", out: str) -> Dict[str, str]:
    paths = {"stablehlo text": out, "stablehlo bytecode": out + ".mlirbc", "jax.export artifact": out + ".jax"}
    with open(paths["stablehlo text"], "w", encoding="utf-8") as f:
        f.write(stablehlo_text(exported))
    with open(paths["stablehlo bytecode"], "wb") as f:
        f.write(stablehlo_bytecode(exported))
    with open(paths["jax.export artifact"], "wb") as f:
        f.write(bytes(exported.serialize()))
    return paths


def cli_export(exe, entry: str, out: str, *, constraints: Sequence[str] = (), checks: str = "raise") -> str:
    """``relax-ref export``: export ``entry`` of the compiled module ``exe`` (``relax_jax.compile``) and
    write the artifacts; returns the report (raises RelaxError; OSError when a file cannot be written)."""
    exported = export_function(exe, entry, constraints=constraints, checks=checks)
    paths = _write(exported, out)
    lines = [f"exported '{entry}': {describe(exported)}"]
    lines += [f"  {kind}: {path}" for kind, path in paths.items()]
    return "\n".join(lines)


def describe(exported: "jax.export.Exported") -> str:
    """``(f32[n,4], f32[4,8]) -> f32[n,8]``: the artifact's symbolic signature."""
    def av(a) -> str:
        return f"{a.dtype}[{','.join(str(d) for d in a.shape)}]"

    ins = ", ".join(av(a) for a in exported.in_avals)
    outs = ", ".join(av(a) for a in exported.out_avals)
    return f"({ins}) -> ({outs}) on {', '.join(exported.platforms)}"


__all__ = ["export_function", "export", "deserialize", "argument_specs", "stablehlo_text",
           "stablehlo_bytecode", "write_artifacts", "cli_export", "describe", "SERIALIZATION"]
