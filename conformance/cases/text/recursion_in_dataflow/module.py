from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((3,), "float32"), n: R.Tensor((), "int64")) -> R.Tensor((3,), "float32"):
        cls = Module
        c = R.greater(n, R.const(0, "int64"))
        if c:
            with R.dataflow():
                m = R.subtract(n, R.const(1, "int64"))
                y0 = cls.f(x, m)
                y1 = R.add(y0, x)
                R.output(y1)
            r = y1
        else:
            r = x
        return r

    @R.function
    def main(x: R.Tensor((3,), "float32"), n: R.Tensor((), "int64")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = cls.f(x, n)
        return y
