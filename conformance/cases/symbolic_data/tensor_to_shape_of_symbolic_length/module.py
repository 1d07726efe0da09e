from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor(("r",), "int64")) -> R.Shape(ndim=2):
        a = T.int64()
        b = T.int64()
        s = R.tensor_to_shape(t)
        u = R.match_cast(s, R.Shape([a, b]))
        v = R.shape([b, a * b])
        return v
