from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=1):
        n = T.int64()
        m = n * 2
        s = R.shape([m])
        return s
