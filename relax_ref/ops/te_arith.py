"""The arithmetic interface of the kernels written once over several backends, as TIR expressions.

Some kernels (``image.resize2d``/``resize3d``, ``image.grid_sample``) are written once against a
small arithmetic interface ``B`` (``B.add(a, b)``, ``B.select(c, a, b)``, ``B.f(1.0)``, ...): the
reference evaluates them on arrays, the legalization on TIR expressions. :class:`TEArith` is the
TIR side of the operations those kernels share; each kernel's backend adds its own loads and index
arithmetic.
"""

from __future__ import annotations

from . import te_ops


class TEArith:
    """Float operations on TIR expressions in the dtype ``dt`` (constants by :meth:`f`)."""

    dt = "float32"

    def f(self, v):
        return te_ops.const(float(v), self.dt)

    def add(self, a, b):
        return te_ops.add(a, b)

    def sub(self, a, b):
        return te_ops.sub(a, b)

    def mul(self, a, b):
        return te_ops.mul(a, b)

    def div(self, a, b):
        return te_ops.div(a, b)

    def neg(self, a):
        return te_ops.neg(a)

    def lt(self, a, b):
        return te_ops.lt(a, b)

    def gt(self, a, b):
        return te_ops.gt(a, b)

    def ge(self, a, b):
        return te_ops.ge(a, b)

    def le(self, a, b):
        return te_ops.le(a, b)

    def and_(self, a, b):
        return te_ops.logical_and(a, b)

    def any_(self, a, b):
        return te_ops.logical_or(a, b)

    def select(self, c, a, b):
        return te_ops.if_then_else(c, a, b)
