from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), c: R.Prim("bool")) -> R.Tensor((4,), "float32"):
        if c:
            a = R.add(x, x)
            y = R.multiply(a, x)
        else:
            b = R.subtract(x, x)
            y = R.add(b, x)
        return y
