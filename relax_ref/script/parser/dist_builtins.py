"""The distributed vocabulary of TVMScript (DIST.TEXT.1-3): ``R.device_mesh(shape, ids)``,
``I.Range(begin, end)`` / ``R.Range(begin, end)`` and ``R.DTensor(shape, dtype, device_mesh,
placement, ndim=)``.

A mesh named in text (``device_mesh="mesh[0]"``) is the entry of that list of the module's global
infos (:meth:`relax_ref.script.parser.module.ParseContext.lookup_mesh`); outside a module with global
infos such a name is a ParseError. ``R.DTensor`` yields a proxy turned into a
:class:`~relax_ref.ir.distributed.DTensorStructInfo` by :mod:`.struct_info`, like ``R.Tensor``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import StructInfoError
from ...ir.distributed import DeviceMesh
from . import prim
from .calls import HANDLERS, REQUIRED, CallInfo, bind_params
from .relax_builtins import HANDLERS as _H  # noqa: F401  (the R.Tensor handler is registered first)
from .values import DTensorProxy, MeshRange, TensorProxy

if TYPE_CHECKING:  # pragma: no cover
    from .evaluator import Evaluator


def _int(ev, info, v, what) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ev.error(info.node, f"{info.path}: {what} must be an integer, got {prim.describe(v)}")
    if not -2 ** 63 <= v < 2 ** 63:
        raise ev.error(info.node, f"{info.path}: {what} {v} does not fit in int64 (RUNTIME.LIMIT.1)")
    return v


def _range(ev: "Evaluator", info: CallInfo) -> MeshRange:
    b = bind_params(ev, info, (("begin", REQUIRED), ("end", REQUIRED)))
    begin, end = _int(ev, info, b["begin"], "begin"), _int(ev, info, b["end"], "end")
    if begin < 0 or end < begin:
        raise ev.error(info.node, f"{info.path}({begin}, {end}): a device range needs 0 <= begin <= end")
    return MeshRange(begin, end)


def _device_mesh(ev: "Evaluator", info: CallInfo) -> DeviceMesh:
    """``R.device_mesh(shape, I.Range(b, e) | [ids])`` (DIST.MESH.1)."""
    b = bind_params(ev, info, (("shape", REQUIRED), ("device_ids", REQUIRED)))
    shape, ids = b["shape"], b["device_ids"]
    if not isinstance(shape, (tuple, list)):
        raise ev.error(info.node_of(0), f"R.device_mesh: the shape must be a tuple of integers, got "
                                        f"{prim.describe(shape)}")
    shape = tuple(_int(ev, info, d, "a mesh extent") for d in shape)
    try:
        if isinstance(ids, MeshRange):
            return DeviceMesh.from_range(shape, ids.begin, ids.end - ids.begin)
        if isinstance(ids, (tuple, list)):
            return DeviceMesh(shape, tuple(_int(ev, info, i, "a device id") for i in ids))
    except StructInfoError as e:
        raise ev.error(info.node, f"R.device_mesh: {e.message}") from None
    raise ev.error(info.node_of(1), f"R.device_mesh: the devices must be I.Range(begin, end) or a list of ids, "
                                    f"got {prim.describe(ids)}")


def _dtensor(ev: "Evaluator", info: CallInfo) -> DTensorProxy:
    """``R.DTensor(shape=None, dtype=None, device_mesh=..., placement=..., ndim=-1)`` (DIST.TEXT.1)."""
    b = bind_params(ev, info, (("shape", None), ("dtype", None), ("device_mesh", REQUIRED),
                               ("placement", REQUIRED), ("ndim", -1)))
    tinfo = CallInfo(info.node, "R.Tensor", [], {"shape": b["shape"], "dtype": b["dtype"], "ndim": b["ndim"]},
                     [], {k: info.node_of(k) for k in ("shape", "dtype", "ndim")})
    if "shape" not in info.kwargs and info.arg_nodes:
        tinfo.kw_nodes["shape"] = info.arg_nodes[0]
    tensor = HANDLERS["R.Tensor"](ev, tinfo)
    assert isinstance(tensor, TensorProxy)
    mesh = b["device_mesh"]
    if not isinstance(mesh, (str, DeviceMesh)):
        raise ev.error(info.node_of("device_mesh"), f"R.DTensor: device_mesh must be R.device_mesh(...) or the name "
                                                    f"of a module mesh such as \"mesh[0]\", got {prim.describe(mesh)}")
    if not isinstance(b["placement"], str):
        raise ev.error(info.node_of("placement"), f"R.DTensor: placement must be a string such as \"S[0], R\", got "
                                                  f"{prim.describe(b['placement'])}")
    return DTensorProxy(tensor, mesh, b["placement"], info.node)


def _dist_const(ev: "Evaluator", info: CallInfo):
    """``R.dist.const(value, R.DTensor(...))`` (DIST.TEXT.5; the keyword is ``struct_info`` in TVM 0.25 and
    ``ty`` in TVM 0.27): a constant whose struct info is the given
    DTensor; the value is read as ``R.const`` reads it, in the DTensor's dtype, and must have its
    shape."""
    from ...ir import expr as rx
    from ...ir.distributed import DTensorStructInfo
    from .relax_builtins import const_array
    from .struct_info import to_struct_info

    if "ty" in info.kwargs and "struct_info" not in info.kwargs:     # TVM 0.27 names the keyword ty
        info.kwargs["struct_info"] = info.kwargs.pop("ty")
        info.kw_nodes["struct_info"] = info.kw_nodes.pop("ty", info.node)
    b = bind_params(ev, info, (("value", REQUIRED), ("struct_info", REQUIRED)))
    node = info.node_of(1) if len(info.args) > 1 else info.node_of("struct_info")
    sinfo = to_struct_info(ev, b["struct_info"], node)
    if not isinstance(sinfo, DTensorStructInfo) or sinfo.dtype == "void":
        raise ev.error(node, "R.dist.const: the struct info must be an R.DTensor with a dtype")
    arr = const_array(ev, b["value"], sinfo.dtype, info.node_of(0) if info.args else info.node_of("value"))
    vals = sinfo.shape_values
    if vals is None or tuple(getattr(d, "value", None) for d in vals) != tuple(arr.shape):
        raise ev.error(info.node, f"R.dist.const: a value of shape {tuple(arr.shape)} does not have the shape of "
                                  f"{sinfo}")
    return rx.Constant(arr, struct_info=sinfo, span=ev.span(info.node))


HANDLERS["R.dist.const"] = _dist_const
HANDLERS["R.device_mesh"] = _device_mesh
HANDLERS["R.DTensor"] = _dtensor
HANDLERS["I.Range"] = _range
HANDLERS["R.Range"] = _range

__all__ = ["MeshRange"]
