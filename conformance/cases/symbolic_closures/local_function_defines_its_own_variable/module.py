from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        @R.function
        def inner(z: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            w = R.add(z, z)
            return w
        y = inner(x)
        return y
