from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def shaped(s: R.Shape(["p", "q"]), x: R.Tensor(("p * q",), "float32")) -> R.Tensor(("q", "p"), "float32"):
        p = T.int64()
        q = T.int64()
        y = R.reshape(x, R.shape([p, q]))
        z = R.permute_dims(y, axes=[1, 0])
        return z

    @R.function
    def main(t: R.Tensor((2,), "int64"), x: R.Tensor(("n",), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        a = T.int64()
        b = T.int64()
        cls = Module
        s = R.tensor_to_shape(t)
        u = R.match_cast(s, R.Shape([a, b]))
        r = cls.shaped(u, x)
        return r
