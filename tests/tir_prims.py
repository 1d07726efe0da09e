"""Helpers of the TensorIR lowering tests of relax_jax: the module header of their TVMScript sources
and the primitive counts of a traced computation."""

import collections

import jax

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n\n@I.ir_module\nclass Module:\n"


def prims(exe, entry, *args, checks: str = "off"):
    """Primitive counts of the traced computation (sub-jaxprs included); with ``checks="raise"``
    the computation of its run-time checks included."""
    f = exe.as_jax_function(entry, checks=checks)
    with jax.enable_x64(True):
        jp = jax.make_jaxpr(f)(*args)
    c = collections.Counter()

    def walk(j):
        for e in j.eqns:
            c[e.primitive.name] += 1
            for p in e.params.values():
                inner = getattr(p, "jaxpr", None)
                if inner is not None:
                    walk(inner if hasattr(inner, "eqns") else inner.jaxpr)
    walk(jp.jaxpr)
    return c
