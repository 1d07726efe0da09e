from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def same(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32"))) -> R.Tensor(("n",), "float32"):
        a = t[0]
        b = t[1]
        c = R.subtract(a, b)
        return c

    @R.function
    def main(x: R.Tensor(("p",), "float32"), y: R.Tensor(("q",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        r = cls.same((x, y))
        return r
