from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b", "c"), "int32")) -> R.Shape(ndim=2):
        q = T.int64()
        nz = R.nonzero(x)
        p = R.match_cast(nz, R.Tensor((3, q), "int64"))
        s = R.shape_of(p)
        return s
