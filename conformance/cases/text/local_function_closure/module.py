from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
        @R.function
        def scale(z: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = R.multiply(z, y)
            return w

        a = scale(x)
        b = scale(a)
        return b
