from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
        @R.function
        def inner(z: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = R.add(z, z)
            return w
        r = inner(x)
        return r
