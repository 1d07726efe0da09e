"""Functions that several tests put in their TVMScript programs, one text each so that every test reads
the same function: ``X_TOP`` the top-level text, ``X`` the member of an ``@I.ir_module`` class
(indented by four spaces; a PrimFunc private); each ends in a newline."""

import textwrap


def _member(top: str) -> str:
    return textwrap.indent(top.replace("@T.prim_func\n", "@T.prim_func(private=True)\n", 1), "    ")


#: ``copy``: B[i] = A[i] over a symbolic length
COPY_TOP = '''@T.prim_func
def copy(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i]
'''

#: ``addn``: B[i] = A[i] + m over a symbolic length, ``m`` a scalar parameter
ADDN_TOP = '''@T.prim_func
def addn(a: T.handle, b: T.handle, m: T.int64):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i] + T.Cast("float32", m)
'''

#: ``fact``: the factorial of a scalar, by recursion through the module (``cls.fact``)
FACT_TOP = '''@R.function
def fact(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
    cls = Module
    c = R.less_equal(n, R.const(1, "int64"))
    if c:
        r = R.const(1, "int64")
    else:
        m = R.subtract(n, R.const(1, "int64"))
        sub = cls.fact(m)
        r = R.multiply(n, sub)
    return r
'''

COPY = _member(COPY_TOP)
ADDN = _member(ADDN_TOP)
FACT = _member(FACT_TOP)

#: the start of a module whose ``main(x: (n, 4) float32)`` binds ``y = x + x`` in a dataflow block
DOUBLE_IN_DATAFLOW = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            y = R.add(x, x)
'''

#: the start of a module whose ``main(c, x)`` binds ``y`` in a branch on ``c``
IF_ELSE = '''@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            a = R.add(x, x)
            y = R.multiply(a, x)
        else:
            y = R.subtract(x, x)
'''
