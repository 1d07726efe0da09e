from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "int32"):
        c = R.const([[1, 2, 3], [4, 5, 6]], "int32")
        y = R.add(x, c)
        return y
