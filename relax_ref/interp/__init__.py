"""The reference interpreter: Relax evaluation (:mod:`.relax`), run-time struct-info checks
(:mod:`.checks`), packed functions and built-ins (:mod:`.builtins`), the core operators' semantics
(:mod:`.core_ops`) and the TensorIR evaluator (:mod:`.tir`, vectorized fast path in
:mod:`.tir_vectorize`).

Public API::

    evaluate(mod, entry="main", *args, vectorize=True) -> host value
    Interpreter(mod, *, vectorize=True, stdout=None)(entry, *args) / .run(entry, *args)
    Interpreter.register_func(name, fn) / register_func(name, fn)   # decorator-friendly
    run_prim_func(prim_func, args, *, vectorize=True) -> None       # mutates array arguments
    ShapeValue
    cli_run(path, entry, inputs_npz, out_npz) -> str
"""

from .builtins import register_func
from .cli import cli_run
from .relax import EvalContext, Interpreter, evaluate
from .tir import run_prim_func
from ..values import ShapeValue

__all__ = ["evaluate", "Interpreter", "EvalContext", "register_func", "run_prim_func", "ShapeValue",
           "cli_run"]
