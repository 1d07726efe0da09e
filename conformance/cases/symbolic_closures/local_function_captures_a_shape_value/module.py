from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor("float32", ndim=2)) -> R.Tensor("float32", ndim=2):
        s = R.shape_of(x)
        @R.function
        def flip(v: R.Tensor("float32", ndim=2)) -> R.Tensor("float32", ndim=2):
            a = T.int64()
            b = T.int64()
            t = R.match_cast(s, R.Shape([a, b]))
            u = R.match_cast(v, R.Tensor((a, b), "float32"))
            w = R.permute_dims(u, axes=[1, 0])
            return w
        y = flip(x)
        return y
