from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(("n",), "float32"):
        @R.function
        def neg(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            w = R.negative(z)
            return w
        @R.function
        def sq(z: R.Tensor(("j",), "float32")) -> R.Tensor(("j",), "float32"):
            w = R.multiply(z, z)
            return w
        if c:
            f = neg
        else:
            f = sq
        r = f(x)
        return r
