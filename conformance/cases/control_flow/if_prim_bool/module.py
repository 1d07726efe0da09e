from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")) -> R.Tensor((3,), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = R.multiply(x, x)
        return y
