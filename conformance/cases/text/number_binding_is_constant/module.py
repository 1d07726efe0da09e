from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = 2.0
        t = (x, (c, x))
        y = R.multiply(t[1][1], t[1][0])
        return y
