from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int64"), R.Tensor(ndim=1, dtype="int64")):
        n = T.int64()
        k = T.int64()
        t = R.unique(x, return_inverse=True, return_counts=True)
        m = R.match_cast(t, R.Tuple(R.Tensor((k,), "int32"), R.Tensor((n,), "int64"), R.Tensor((k,), "int64")))
        inv = m[1]
        cnt = m[2]
        r = (inv, cnt)
        return r
