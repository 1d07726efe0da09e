"""The local view on JAX (DIST.LOCAL.1-3): every worker of a function's device mesh runs the whole
function on its shards, and the ``ccl`` operators are JAX collectives between them.

:class:`LocalView` traces the Relax function once per argument shapes with the walker in traced mode
(as :func:`relax_jax.as_jax_function` does) inside a *worker scope* (``relax_jax.sharding``), as
``jax.vmap`` lanes over named axes, one per mesh axis (``m0``, ``m1``, ...): every argument is the
stack of the workers' shards on leading axes of the mesh's shape (a DTensor's shard by its placement,
a plain argument given to every worker, DIST.LOCAL.1), and the collectives are JAX's collectives over
those axes.

* On a mesh of devices (``jax.devices()`` has at least the mesh's size), the lanes are partitioned:
  the stacked leading axes are sharded over a ``jax.sharding.Mesh`` of the device mesh's shape, so that
  each device holds and computes its worker's lane, and XLA's partitioner turns a collective over the
  lanes into the same collective between the devices (``all-reduce`` for ``R.ccl.allreduce``).
  ``shard_map=True`` runs the workers under ``jax.shard_map`` instead (the arguments placed with the
  ``NamedSharding`` of their placements). The two compile to the same computation and communication;
  ``shard_map`` puts copies of every argument and result at its boundary, which only XLA's algebraic
  simplifier removes, a pass the strict floating-point rules switch off (PRIM.FLOAT.1), so partitioned
  lanes are the default on a mesh of one axis. On a mesh of several axes ``shard_map`` is: XLA's
  partitioner turns a sum over several lane axes into one all-reduce per axis, which adds the workers'
  tensors in another order than the rank order of ``R.ccl.allreduce`` (a different float sum).
* Otherwise (``simulate=True``, or too few devices), the lanes run on one device (simulated workers,
  the same collectives).

Lanes compile with the executable's options (``float_rules.STRICT_OPTIONS`` under the strict rules):
YNN's library fusions restricted to single dots, without which jaxlib 0.10 broadcasts a reduction's
result wrongly inside a YNN fusion when XLA's algebraic simplifier is off. An allreduce over vmap
lanes is exactly such a reduction (over the lane axis, broadcast back to every lane): the decoder
layer of ``examples/llama_tp.py`` at 32 tokens, hidden 128, 2 heads of 64, MLP width 256, on 2
simulated lanes, was off by 4.06 (absolute) from the reference, and is exact with the restriction
(``tests/dist/test_local_view_jax.py``). The same fusion breaks an ordinary program
(``x + sum(x, axis=0, keepdims=True)``), so the restriction belongs to the strict rules, not to the
lanes. On partitioned lanes it also matters for speed: the reduction over a device's one lane, which
the simplifier would make a bitcast, stays a reduction, and YNN's fusion would grow from it over the
whole worker program.

Each worker's results come back stacked along the mesh axes (no collective: a device keeps its own),
and the result is assembled on the host as the reference does (``relax_ref.ops.dist_shards.assemble``:
a DTensor from the shards by the return placement, a replicated block from the worker of coordinate 0;
a plain result is worker 0's). Run-time checks on data (``R.assert_op``, TensorIR bounds) report the
first failing site's error after the run. The trace and the compilation follow the executable's
floating-point rules (``float_rules``, PRIM.FLOAT.1; pass ``relax_jax.compile(mod, float_rules=...)``
as ``mod`` to choose). :meth:`LocalView.compile` gives the compiled function and the placed
arguments (for timing), :meth:`LocalView.compiled_text` its optimized HLO.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from relax_ref.errors import OpRuntimeError, RelaxError, UnsupportedError
from relax_ref.interp.evaluator import point_at_parameter
from relax_ref.interp.workers import function_mesh
from relax_ref.limits import check_workers
from relax_ref.ir import expr as rx
from relax_ref.ir import struct_info as si
from relax_ref.ir.distributed import DTensorStructInfo, shard_parts
from relax_ref.ops.dist_shards import assemble, shard_of

from .errors import ErrorSink, NeedsExact, TraceAbort
from .float_rules import tracing_mode
from .jaxfn import _to_jax, _to_value
from .sharding import axis_names, jax_mesh, partition_spec, worker_scope
from .walker import Frame, Walker


def _leaves_with_sinfo(v: Any, s: Optional[si.StructInfo], out: list) -> None:
    if isinstance(v, (tuple, list)):
        fields = s.fields if isinstance(s, si.TupleStructInfo) and len(s.fields) == len(v) else [None] * len(v)
        for x, f in zip(v, fields):
            _leaves_with_sinfo(x, f, out)
    else:
        out.append((v, s))


def _rebuild(v: Any, it) -> Any:
    if isinstance(v, (tuple, list)):
        return tuple(_rebuild(x, it) for x in v)
    return next(it)


def _check_split(a: np.ndarray, s: DTensorStructInfo) -> None:
    """DIST.WF.2 at run time: every sharded axis of the global argument splits evenly."""
    for axis in s.placement.sharded_axes():
        if axis < a.ndim and a.shape[axis] % shard_parts(s.placement, s.device_mesh, axis):
            raise OpRuntimeError(f"axis {axis} of extent {a.shape[axis]} does not split evenly under "
                                 f"\"{s.placement}\" (DIST.WF.2)")


class LocalView:
    """``entry`` of ``mod`` in the local view on JAX (see the module docstring).

    ``devices``: the devices of the mesh (default ``jax.devices()``); ``simulate``: ``True`` runs the
    workers as ``vmap`` lanes on one device, ``None`` (default) does so only when there are fewer
    devices than workers; ``shard_map``: on a device mesh, ``True`` runs the workers under
    ``jax.shard_map``, ``False`` as partitioned lanes, ``None`` (default) as lanes on a mesh of one
    axis and under ``shard_map`` on a mesh of several (see the module docstring)."""

    def __init__(self, mod, entry: str = "main", *, devices: Optional[Sequence[Any]] = None,
                 simulate: Optional[bool] = None, shard_map: Optional[bool] = None) -> None:
        from .executable import Executable

        self.exe = mod if hasattr(mod, "as_jax_function") else Executable(mod)
        if entry not in self.exe.mod or not isinstance(self.exe.mod[entry], rx.Function):
            raise UnsupportedError(f"'{entry}' is not a Relax function of the module")
        self.entry = entry
        self.func = self.exe.mod[entry]
        self.mesh = function_mesh(self.func)
        # RUNTIME.LIMIT.9: one worker per device, a vmap lane each when simulated
        check_workers(self.mesh.size, self.exe.limits, f"the local view of '{entry}'", getattr(self.func, "span", None))
        self.names = axis_names(self.mesh)
        devs = list(devices) if devices is not None else jax.devices()
        self.simulated = bool(simulate) if simulate is not None else len(devs) < self.mesh.size
        self.jmesh = None if self.simulated else jax_mesh(self.mesh, devs)
        #: the workers run as vmap lanes (simulated, or partitioned over the devices)
        self.lanes = self.simulated or (not shard_map if shard_map is not None else self.mesh.ndim == 1)
        self._builders: List[Any] = []
        self._fns: dict = {}

    # -- the per-worker body ---------------------------------------------------------------------------

    def _body(self, treedef_args):
        func, entry = self.func, self.entry
        lead = 0 if self.lanes else self.mesh.ndim

        def body(*flat):
            args = _rebuild(treedef_args, iter(flat))
            with worker_scope(self.mesh):
                sink = ErrorSink(True)
                walker = Walker(self.exe, "traced", sink)
                vals = [_to_value(a, p.struct_info) for a, p in zip(args, func.params)]
                frame = Frame({}, {}, entry)
                try:
                    walker.check_values([(v, p.struct_info, p.name_hint) for v, p in zip(vals, func.params)],
                                        frame, site="param", bind=True, span=func.span)
                except RelaxError as e:
                    raise point_at_parameter(e, func)
                try:
                    result = walker.run_entry(func, entry, vals, frame.sym)
                except TraceAbort as e:
                    raise UnsupportedError(f"'{entry}' cannot run in the local view on JAX: {e.reason}") from None
                except NeedsExact as e:
                    raise UnsupportedError(f"'{entry}': {e.reason}") from None
                self._builders = list(sink.builders)
                out = _to_jax(result)
                code = jnp.asarray(sink.code if sink.has_checks else 0, jnp.int32)
            leaves, tree = jax.tree_util.tree_flatten((out, code))
            self._out_tree = tree
            if lead:
                leaves = [jnp.reshape(x, (1,) * lead + tuple(jnp.shape(x))) for x in leaves]
            return tuple(leaves)

        return body

    def _jitted(self, args: Sequence[Any]):
        body = self._body(tuple(args))
        from jax.sharding import PartitionSpec

        if self.lanes:
            f = body
            for name in reversed(self.names):
                f = jax.vmap(f, axis_name=name)
            if self.simulated:
                return jax.jit(f)
            lanes = self._lane_sharding()
            return jax.jit(f, in_shardings=lanes, out_shardings=lanes)

        leaves: list = []
        _leaves_with_sinfo(list(args), si.TupleStructInfo(tuple(p.struct_info for p in self.func.params)), leaves)
        in_specs = tuple(self._spec(v, s) for v, s in leaves)
        return jax.jit(jax.shard_map(body, mesh=self.jmesh, in_specs=in_specs, out_specs=PartitionSpec(*self.names),
                                     check_vma=False))

    def compile(self, *args: Any):
        """``(compiled function, placed arguments)`` for these arguments: traced under the executable's
        floating-point rules and compiled with its compiler options (``float_rules``, as
        ``relax_jax.compile``), once per argument shapes and dtypes."""
        with jax.enable_x64(True):
            placed = self.place(*args)
            key = tuple((tuple(a.shape), str(a.dtype)) for a in placed)
            entry = self._fns.get(key)
            if entry is None:
                with tracing_mode(self.exe.float_rules):
                    fn = self._jitted(args).lower(*placed).compile(self.compiler_options())
                entry = self._fns[key] = (fn, self._builders, self._out_tree)
        self._builders, self._out_tree = entry[1], entry[2]
        return entry[0], placed

    def compiler_options(self) -> dict:
        """The executable's XLA options (``float_rules.compiler_options``; see the module docstring)."""
        return dict(self.exe.compiler_options)

    def _lane_sharding(self):
        """The leading (mesh-shaped) axes of the stacked lanes sharded over the devices."""
        from jax.sharding import NamedSharding, PartitionSpec

        return NamedSharding(self.jmesh, PartitionSpec(*self.names))

    def _spec(self, v: Any, s: Optional[si.StructInfo]):
        from jax.sharding import PartitionSpec

        if isinstance(s, DTensorStructInfo):
            return partition_spec(s.placement, self.mesh, np.ndim(v))
        return PartitionSpec()

    # -- placing the arguments --------------------------------------------------------------------------

    def place(self, *args: Any) -> list:
        """The arguments' leaves as the compiled function takes them: as lanes, every worker's shard
        (a plain argument whole) stacked along leading axes of the mesh's shape, on a device mesh
        sharded so that each device receives its own lane and nothing more; under ``shard_map``, each
        placed with the ``NamedSharding`` of its placement (replicated when plain)."""
        leaves: list = []
        _leaves_with_sinfo(list(args), si.TupleStructInfo(tuple(p.struct_info for p in self.func.params)), leaves)
        out = []
        for v, s in leaves:
            a = v if isinstance(v, jax.Array) else np.asarray(v)
            if isinstance(s, DTensorStructInfo):
                _check_split(a, s)
            if self.lanes:
                a = np.asarray(a)
                shard = (lambda c, a=a, s=s: shard_of(a, s, c)) if isinstance(s, DTensorStructInfo) and \
                    a.ndim == s.ndim else (lambda c, a=a: a)
                out.append(self._stack(shard, a.dtype))
            else:
                from jax.sharding import NamedSharding

                out.append(jax.device_put(a, NamedSharding(self.jmesh, self._spec(a, s))))
        return out

    def _stack(self, shard, dtype) -> Any:
        """The workers' ``shard(coords)`` stacked on leading axes of the mesh's shape: a numpy array
        (simulated) or a ``jax.Array`` built lane by lane on the devices that hold them."""
        lead = tuple(self.mesh.shape)
        if self.simulated:
            parts = [np.asarray(shard(self.mesh.coords(r))) for r in range(self.mesh.size)]
            return np.stack(parts).reshape(lead + parts[0].shape)
        first = np.asarray(shard(self.mesh.coords(0)))
        shape = lead + first.shape

        def lane(index):
            coords = tuple(ix.start or 0 for ix in index[:len(lead)])
            return np.asarray(shard(coords), dtype).reshape((1,) * len(lead) + first.shape)

        return jax.make_array_from_callback(shape, self._lane_sharding(), lane)

    def compiled_text(self, *args: Any) -> str:
        """The optimized HLO of the program for these arguments (its collectives: ``all-reduce``,
        ``all-gather``, ...)."""
        return self.compile(*args)[0].as_text()

    # -- calling ------------------------------------------------------------------------------------------

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.func.params):
            from relax_ref.errors import ArityMismatchError

            raise ArityMismatchError(f"function '{self.entry}' takes {len(self.func.params)} arguments, got "
                                     f"{len(args)}", site="param", function=self.entry)
        fn, placed = self.compile(*args)
        with jax.enable_x64(True):
            outs = fn(*placed)
        workers = [[np.asarray(x).reshape((self.mesh.size,) + tuple(np.shape(x))[self.mesh.ndim:])[r] for x in outs]
                   for r in range(self.mesh.size)]
        per_worker = [jax.tree_util.tree_unflatten(self._out_tree, w) for w in workers]
        codes = [int(code) for _, code in per_worker]
        bad = next((c for c in codes if c), 0)
        if bad:
            raise self._builders[bad - 1]()
        return _join([out for out, _ in per_worker], self.func.ret_struct_info)


def _join(values: List[Any], s: Optional[si.StructInfo]) -> Any:
    if isinstance(s, DTensorStructInfo):
        return assemble(values, s)
    if isinstance(s, si.TupleStructInfo) and isinstance(values[0], tuple):
        return tuple(_join([v[i] for v in values], f) for i, f in enumerate(s.fields))
    return values[0]


def run_local(mod, entry: str, *args: Any, devices: Optional[Sequence[Any]] = None,
              simulate: Optional[bool] = None) -> Any:
    """Evaluate ``entry`` in the local view on JAX (DIST.LOCAL.1-3): the global arguments sharded by
    the parameters' placements, the result assembled by the return placement."""
    return LocalView(mod, entry, devices=devices, simulate=simulate)(*args)


__all__ = ["LocalView", "run_local"]
