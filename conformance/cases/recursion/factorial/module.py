from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def fact(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        c = R.less_equal(n, R.const(1, "int64"))
        if c:
            r = R.const(1, "int64")
        else:
            m = R.subtract(n, R.const(1, "int64"))
            f = cls.fact(m)
            r = R.multiply(n, f)
        return r

    @R.function
    def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        r = cls.fact(n)
        return r
