"""``Module`` and ``Parameter``: weights become function parameters, values are kept alongside.

A :class:`Parameter` describes one weight (static shape, dtype, initializer). A model's weights
are passed to every Relax function built from it as trailing parameters, after the function's
inputs (the ``num_input`` convention of TVM's nn exports). Since a Relax variable may be the
parameter of only one function (WF.PARAM.1), each function gets fresh variables:
:meth:`Module.bind_params` creates one ``Var`` per parameter (named after the parameter's path,
``layers_0_attn_q_proj_weight``) and makes it the value of ``param.expr`` while the scope lasts.

Values: :meth:`Module.init_params(seed)` fills every parameter with seeded random numpy data
(``numpy.random.default_rng(seed)``, parameters in :meth:`named_parameters` order, each drawn from
its initializer), and :meth:`Module.param_arrays` returns them in parameter order, ready to be
passed after the inputs.
"""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ...builder import BlockBuilder
from ...builder import values
from ...builder._span import caller_span
from ...errors import StructInfoError, WellFormedError
from ...ir import dtype as _dt
from ...ir import expr as rx

#: initializers: name -> f(rng, shape) -> float64 array
_INITS = {
    "normal": lambda rng, shape, scale: rng.standard_normal(shape) * scale,
    "ones_jitter": lambda rng, shape, scale: 1.0 + rng.standard_normal(shape) * scale,
    "zeros": lambda rng, shape, scale: np.zeros(shape),
}


class Parameter:
    """A weight of static ``shape`` and ``dtype``; ``init`` is ``"normal"`` (N(0, scale²)),
    ``"ones_jitter"`` (1 + N(0, scale²)) or ``"zeros"``."""

    def __init__(self, shape: Sequence[int], dtype: str = "float32", init: str = "normal",
                 scale: float = 1.0) -> None:
        dims = tuple(int(d) for d in shape)
        if any(d < 0 for d in dims):
            raise StructInfoError(f"parameter shape must be non-negative, got {dims}", caller_span())
        if init not in _INITS:
            raise StructInfoError(f"unknown initializer {init!r} (one of {sorted(_INITS)})", caller_span())
        self.shape = dims
        self.dtype = _dt.check(dtype)
        self.init = init
        self.scale = float(scale)
        self.data: Optional[np.ndarray] = None
        self._var: Optional[rx.Var] = None

    @property
    def struct_info(self):
        return values.Tensor(self.shape, self.dtype)

    @property
    def expr(self) -> rx.Var:
        """The parameter's variable in the function being built (see :meth:`Module.bind_params`)."""
        if self._var is None:
            raise WellFormedError("parameter used outside `with module.bind_params()`: its function "
                                  "variable is not known", caller_span())
        return self._var

    def __repr__(self) -> str:
        return f"Parameter({self.shape}, {self.dtype!r})"


class Module:
    """Base of the module library: attributes that are Parameters, Modules or lists of Modules
    are collected in definition order."""

    def named_parameters(self, prefix: str = "") -> List[Tuple[str, Parameter]]:
        """``(path, parameter)`` pairs, paths joined with ``_`` (``layers_0_mlp_up_proj_weight``)."""
        out: List[Tuple[str, Parameter]] = []
        for name, value in vars(self).items():
            if name.startswith("_"):
                continue
            path = f"{prefix}{name}"
            if isinstance(value, Parameter):
                out.append((path, value))
            elif isinstance(value, Module):
                out.extend(value.named_parameters(path + "_"))
            elif isinstance(value, (list, tuple)) and value and all(isinstance(m, Module) for m in value):
                for i, m in enumerate(value):
                    out.extend(m.named_parameters(f"{path}_{i}_"))
        return out

    def parameters(self) -> List[Parameter]:
        return [p for _, p in self.named_parameters()]

    def init_params(self, seed: int = 0) -> "Module":
        """Fill every parameter with seeded random values (deterministic for a seed)."""
        rng = np.random.default_rng(seed)
        for _, p in self.named_parameters():
            p.data = np.asarray(_INITS[p.init](rng, p.shape, p.scale)).astype(_dt.to_numpy(p.dtype))
        return self

    def param_arrays(self) -> List[np.ndarray]:
        """The parameter values in :meth:`named_parameters` order (after :meth:`init_params`)."""
        out = []
        for name, p in self.named_parameters():
            if p.data is None:
                raise WellFormedError(f"parameter {name} has no value: call init_params(seed) first", caller_span())
            out.append(p.data)
        return out

    @contextlib.contextmanager
    def bind_params(self) -> Iterator[List[rx.Var]]:
        """Fresh function-parameter variables for every parameter, in :meth:`named_parameters`
        order; ``param.expr`` refers to them inside the scope."""
        named = self.named_parameters()
        if any(p._var is not None for _, p in named):
            raise WellFormedError("bind_params scopes of one module cannot be nested", caller_span())
        vs = []
        for name, p in named:
            p._var = rx.Var(name_hint=name, struct_info=p.struct_info)
            vs.append(p._var)
        try:
            yield vs
        finally:
            for _, p in named:
                p._var = None


def emit(expr: rx.Expr, name_hint: str = "") -> rx.Var:
    """``BlockBuilder.current().emit(expr)``: the module library emits into the active function."""
    return BlockBuilder.current().emit(expr, name_hint)


def build_function(bb: BlockBuilder, name: str, inputs: Sequence[rx.Var], module: Module, body,
                   attrs: Optional[Dict] = None) -> rx.GlobalVar:
    """Build ``name(*inputs, *weights)`` whose single dataflow block is ``body(*inputs)``.

    ``body`` emits through the module library and returns a Relax expression (or a list of them,
    returned as a tuple). The function gets ``num_input = len(inputs)``."""
    fattrs = {"num_input": len(inputs)}
    fattrs.update(attrs or {})
    with module.bind_params() as weights:
        with bb.function(name, [*inputs, *weights], attrs=fattrs):
            with bb.dataflow():
                out = body(*inputs)
                if isinstance(out, (list, tuple)):
                    out = rx.Tuple(tuple(out))
                gv = bb.emit_output(out)
            bb.emit_func_output(gv)
    return bb.get_global_var(name)


__all__ = ["Parameter", "Module", "emit", "build_function"]
