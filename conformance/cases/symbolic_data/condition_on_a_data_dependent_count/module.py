from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        k = T.int64()
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((k,), "int32"))
        c = R.prim_value(k > 2)
        if c:
            r = R.strided_slice(v, axes=[0], begin=[0], end=[2])
        else:
            r = R.negative(v)
        return r
