from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        @R.function
        def rev(w: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            v = R.match_cast(w, R.Tensor((k,), "float32"))
            c = R.prim_value(k > 1)
            if c:
                head = R.strided_slice(v, axes=[0], begin=[0], end=[1])
                tail = R.strided_slice(v, axes=[0], begin=[1], end=[k])
                t = rev(tail)
                j = T.int64()
                u = R.match_cast(t, R.Tensor((j,), "float32"))
                r = R.concat((u, head), axis=0)
            else:
                r = v
            return r
        y = rev(x)
        return y
