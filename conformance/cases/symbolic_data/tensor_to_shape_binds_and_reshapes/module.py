from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor((2,), "int64"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        a = T.int64()
        b = T.int64()
        s = R.tensor_to_shape(t)
        u = R.match_cast(s, R.Shape([a, b]))
        y = R.match_cast(x, R.Tensor((a * b,), "float32"))
        z = R.reshape(y, R.shape([a, b]))
        w = R.permute_dims(z, axes=[1, 0])
        return w
