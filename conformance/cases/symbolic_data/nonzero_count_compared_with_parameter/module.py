from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        k = T.int64()
        nz = R.nonzero(x)
        p = R.match_cast(nz, R.Tensor((1, k), "int64"))
        q = R.reshape(p, R.shape([k]))
        f = R.astype(q, "float32")
        r = R.add(f, y)
        return r
