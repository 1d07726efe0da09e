from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "int32")):
        c = R.const([[1, 2], [3, 4]], "int32")
        y = R.add(x, c)
        m = R.const(float("-inf"), "float32")
        b = R.const(True, "bool")
        return (y, m, b)
