from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def squeeze(x: R.Tensor(ndim=2, dtype="float32")):
        m = T.int64()
        y = R.match_cast(x, R.Tensor((1, m), "float32"))
        z = R.reshape(y, R.shape([m]))
        return z

    @R.function
    def want(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return v

    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        s = cls.squeeze(x)
        r = cls.want(s)
        return r
