"""The local view (DIST.LOCAL.1-3): the reference simulates a mesh's workers, one thread and one
interpreter per worker, and runs the collectives between them (``relax_ref.ops.collective``).

``evaluate_local(mod, entry, *args)`` shards the global arguments by the parameters' placements,
runs ``entry`` on every worker and assembles the result from the workers' shards by the placements of
the function's return struct info. Shard arithmetic: :func:`shard_of` / :func:`assemble`.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, List, Optional

import numpy as np

from ..errors import UnsupportedError
from ..ir import expr as rx
from ..ir.distributed import DeviceMesh, DTensorStructInfo
from ..ir.module import IRModule
from ..ir.struct_info import StructInfo, TupleStructInfo
from ..ops import collective
from ..limits import check_workers, python_recursion_limit, resolve as resolve_limits
from ..ops.dist_shards import assemble, shard_of
from .relax import Interpreter


def _split_arg(v: Any, s: Optional[StructInfo], coords) -> Any:
    if isinstance(s, DTensorStructInfo) and isinstance(v, np.ndarray):
        return shard_of(v, s, coords)
    if isinstance(s, TupleStructInfo) and isinstance(v, (tuple, list)):
        return tuple(_split_arg(x, f, coords) for x, f in zip(v, s.fields))
    return v


def _join_result(values: List[Any], s: Optional[StructInfo]) -> Any:
    if isinstance(s, DTensorStructInfo):
        return assemble(values, s)
    if isinstance(s, TupleStructInfo) and isinstance(values[0], tuple):
        return tuple(_join_result([v[i] for v in values], f) for i, f in enumerate(s.fields))
    return values[0]


def function_mesh(func: rx.Function) -> DeviceMesh:
    """The one mesh of a function's DTensor parameters and result (DIST.LOCAL.1)."""
    meshes = []

    def walk(s):
        if isinstance(s, DTensorStructInfo):
            meshes.append(s.device_mesh)
        elif isinstance(s, TupleStructInfo):
            for f in s.fields:
                walk(f)
    for p in func.params:
        walk(p.struct_info)
    walk(func.ret_struct_info)
    if not meshes:
        raise UnsupportedError("the local view needs a function with DTensor parameters or result (DIST.LOCAL.1)")
    if any(m != meshes[0] for m in meshes):
        raise UnsupportedError("the local view runs a function whose DTensors lie on one device mesh (DIST.LOCAL.1)")
    return meshes[0]


#: the operators that only the local view evaluates (DIST.SEM.2, DIST.LOCAL.3)
LOCAL_VIEW_OPS = frozenset({"relax.dist.call_tir_local_view", "relax.dist.redistribute_replica_to_shard",
                            "relax.ccl.allreduce", "relax.ccl.allgather", "relax.ccl.broadcast_from_worker0",
                            "relax.ccl.scatter_from_worker0"})


def is_local_view(func: rx.Function) -> bool:
    """Whether ``func`` calls an operator of the local view (the output of LowerGlobalViewToLocalView,
    LegalizeRedistribute or LowerDistIR, PASS.LOCALVIEW.*, PASS.DISTIR.*)."""
    from ..ir.functor import expr_children

    stack: list = [func.body]
    while stack:
        e = stack.pop()
        if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) and e.op.name in LOCAL_VIEW_OPS:
            return True
        if isinstance(e, rx.SeqExpr):
            stack.extend(b.value for blk in e.blocks for b in blk.bindings)
        stack.extend(expr_children(e))
    return False


def evaluate_local(mod: IRModule, entry: str, *args: Any, timeout: float = 300.0, layout: Optional[rx.Function] = None,
                   interpreter=None, **interp_kwargs) -> Any:
    """Evaluate ``entry`` in the local view on every worker of its mesh (DIST.LOCAL.1-3). ``layout``
    (a function with DTensor parameters or result, by default ``entry`` itself) gives the mesh and
    the placements by which the workers' results are assembled: after LowerDistIR the function has
    only tensors, and its original gives them (PASS.DISTIR.4). ``interpreter`` replaces the
    reference :class:`Interpreter` class."""
    func = mod[entry]
    shape_of = layout if layout is not None else func
    mesh = function_mesh(shape_of)
    limits = resolve_limits(interp_kwargs.get("limits"), max_depth=interp_kwargs.get("max_depth"))
    check_workers(mesh.size, limits, f"the local view of '{entry}'", getattr(func, "span", None))    # RUNTIME.LIMIT.9
    interp_cls = interpreter if interpreter is not None else Interpreter
    group = collective.WorkerGroup(mesh.size, timeout)
    results: List[Any] = [None] * mesh.size
    errors: List[Optional[BaseException]] = [None] * mesh.size

    def work(rank: int) -> None:
        coords = mesh.coords(rank)
        collective.join(group, rank, coords)
        try:
            local = [_split_arg(a, p.struct_info, coords) for a, p in zip(args, func.params)]
            results[rank] = interp_cls(mod, **interp_kwargs).run(*local, entry=entry)
        except BaseException as e:  # noqa: BLE001 - reported below, first by rank (DIST.LOCAL.2)
            errors[rank] = e
            group.abort()
        finally:
            collective.leave()

    threads = [threading.Thread(target=work, args=(r,), name=f"relax-worker-{r}", daemon=True)
               for r in range(mesh.size)]
    # the interpreters raise Python's recursion limit for max_depth (RUNTIME.LIMIT.7) and restore it;
    # raised here once for all workers, since concurrent raises and restores could leave it raised
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, python_recursion_limit(limits.max_depth)))
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setrecursionlimit(old)
    failed = [e for e in errors if e is not None]
    if failed:
        primary = [e for e in failed if "collective was abandoned" not in str(e)]
        raise (primary or failed)[0]
    return _join_result(results, shape_of.ret_struct_info)


__all__ = ["evaluate_local", "shard_of", "assemble", "function_mesh", "is_local_view", "LOCAL_VIEW_OPS"]
