from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor(ndim=2, dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y = R.match_cast(x, R.Tensor((n, 2), "float32"))
            z = R.add(y, y)
            R.output(z)
        return z
