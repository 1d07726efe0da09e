from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c: R.Prim("bool")) -> R.Tensor((2,), "float32"):
        @R.function
        def f(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            w = R.add(v, x)
            return w
        @R.function
        def g(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            w = R.multiply(v, x)
            return w
        fs = (f, g)
        if c:
            h = fs[0]
        else:
            h = fs[1]
        r = h(x)
        return r
