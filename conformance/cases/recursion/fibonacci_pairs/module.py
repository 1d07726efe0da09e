from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def fib(n: R.Tensor((), "int64")) -> R.Tuple(R.Tensor((), "int64"), R.Tensor((), "int64")):
        cls = Module
        c = R.equal(n, R.const(0, "int64"))
        if c:
            r = (R.const(0, "int64"), R.const(1, "int64"))
        else:
            m = R.subtract(n, R.const(1, "int64"))
            p = cls.fib(m)
            a = p[0]
            b = p[1]
            s = R.add(a, b)
            r = (b, s)
        return r

    @R.function
    def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        p = cls.fib(n)
        r = p[0]
        return r
