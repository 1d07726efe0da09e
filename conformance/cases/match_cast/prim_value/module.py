from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Prim("int64"), x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(ndim=1, dtype="float32"):
        k = T.int64()
        q = R.match_cast(p, R.Prim(value=k))
        y = R.match_cast(x, R.Tensor((k,), "float32"))
        return y
