from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Shape(ndim=1), R.Tensor(ndim=1, dtype="int32")):
        k = T.int64()
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((k,), "int32"))
        s = R.shape([k * 2 + 1])
        w = R.add(v, v)
        r = (s, w)
        return r
