from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def take(k: R.Prim(value="n"), x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        r = cls.take(R.prim_value(T.int64(3)), x)
        return r
