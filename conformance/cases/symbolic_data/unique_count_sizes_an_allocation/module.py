from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=2, dtype="int32"):
        k = T.int64()
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((k,), "int32"))
        col = R.reshape(v, R.shape([k, 1]))
        z = R.zeros(R.shape([k, 3]), "int32")
        w = R.add(z, col)
        return w
