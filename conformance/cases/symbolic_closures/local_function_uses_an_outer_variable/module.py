from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor("float32", ndim=1):
        n = T.int64()
        @R.function
        def inner(z: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            w = R.match_cast(z, R.Tensor("float32", ndim=1))
            s = R.zeros(R.shape([n]), "float32")
            return s
        y = inner(x)
        return y
