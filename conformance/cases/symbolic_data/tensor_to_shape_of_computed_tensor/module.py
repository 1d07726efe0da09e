from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tuple(R.Shape(ndim=2), R.Tensor(ndim=2, dtype="float32")):
        p = T.int64()
        q = T.int64()
        s = R.shape_of(x)
        t = R.shape_to_tensor(s)
        t2 = R.match_cast(t, R.Tensor((2,), "int64"))
        t1 = R.add(t2, R.const(1, "int64"))
        s1 = R.tensor_to_shape(t1)
        u = R.match_cast(s1, R.Shape([p, q]))
        z = R.ones(R.shape([q, p]), "float32")
        r = (R.shape([p * q, p + q]), z)
        return r
