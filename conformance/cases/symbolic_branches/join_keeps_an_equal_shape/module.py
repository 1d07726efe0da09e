from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def want(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return a

    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((3,), "float32"):
        cls = Module
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        r = cls.want(y)
        return r
