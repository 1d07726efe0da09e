from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def halve(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        n = T.int64()
        c = R.prim_value(n > 1)
        if c:
            h = R.strided_slice(x, axes=[0], begin=[0], end=[n // 2])
            r = cls.halve(h)
        else:
            r = x
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        r = cls.halve(x)
        return r
