from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def sq(z: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            w = R.multiply(z, z)
            return w
        a = sq(x)
        return a
