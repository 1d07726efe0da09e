from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c1: R.Prim("bool"), c2: R.Prim("bool")) -> R.Tensor((2,), "float32"):
        if c1:
            if c2:
                y = R.add(x, R.const(1, "float32"))
            else:
                y = R.add(x, R.const(2, "float32"))
        else:
            if c2:
                y = R.add(x, R.const(3, "float32"))
            else:
                y = R.add(x, R.const(4, "float32"))
        return y
