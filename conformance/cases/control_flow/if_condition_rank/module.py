from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c: R.Tensor(dtype="bool")) -> R.Tensor((2,), "float32"):
        if c:
            y = R.add(x, x)
        else:
            y = x
        return y
