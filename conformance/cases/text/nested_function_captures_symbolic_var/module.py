from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()

        @R.function
        def inner(y: R.Tensor(ndim=1, dtype="float32")) -> R.Shape(ndim=1):
            s = R.shape([n])
            return s

        z = inner(x)
        return z
