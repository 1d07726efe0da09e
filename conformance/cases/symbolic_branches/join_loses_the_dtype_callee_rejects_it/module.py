from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def takes_f32(a: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        return a

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        cls = Module
        if c:
            y = x
        else:
            y = R.astype(x, "int32")
        r = cls.takes_f32(y)
        return r
