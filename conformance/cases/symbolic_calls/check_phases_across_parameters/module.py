from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        a = R.reshape(x, R.shape([n, 2]))
        b = R.max(a, axis=[1])
        return b
