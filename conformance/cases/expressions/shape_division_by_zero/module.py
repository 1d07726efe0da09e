from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Shape(ndim=2):
        n = T.int64()
        m = T.int64()
        s = R.shape([n // m, n % m])
        return s
