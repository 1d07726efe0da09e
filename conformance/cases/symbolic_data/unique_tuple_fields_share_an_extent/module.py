from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int64"):
        k = T.int64()
        t = R.unique(x, return_counts=True)
        m = R.match_cast(t, R.Tuple(R.Tensor((k,), "int32"), R.Tensor((k,), "int64")))
        vals = m[0]
        cnts = m[1]
        v64 = R.astype(vals, "int64")
        w = R.multiply(v64, cnts)
        return w
