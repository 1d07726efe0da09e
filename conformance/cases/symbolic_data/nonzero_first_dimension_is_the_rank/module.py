from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
        c = T.int64()
        nz = R.nonzero(x)
        p = R.match_cast(nz, R.Tensor((1, c), "int64"))
        return p
