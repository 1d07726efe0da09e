from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pair(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        r = R.multiply(a, b)
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        if c:
            y = x
        else:
            y = R.concat((x, x), axis=0)
        r = cls.pair(y, x)
        return r
