from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pair(a: R.Tensor(("m",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        r = R.add(a, b)
        return r

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        @R.function
        def neg(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            w = R.negative(z)
            return w
        @R.function
        def dup(z: R.Tensor(("j",), "float32")) -> R.Tensor(("j * 2",), "float32"):
            w = R.concat((z, z), axis=0)
            return w
        if c:
            f = neg
        else:
            f = dup
        y = f(x)
        r = cls.pair(y, x)
        return r
