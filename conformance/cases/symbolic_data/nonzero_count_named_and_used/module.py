from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tuple(R.Shape(ndim=1), R.Tensor(ndim=1, dtype="int64")):
        c = T.int64()
        nz = R.nonzero(x)
        p = R.match_cast(nz, R.Tensor((2, c), "int64"))
        s = R.sum(p, axis=[0])
        r = (R.shape([c]), s)
        return r
