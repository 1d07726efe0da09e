from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def takes_vector(a: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
        return a

    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        n = T.int64()
        cls = Module
        if c:
            y = x
        else:
            y = R.reshape(x, R.shape([n, 1]))
        r = cls.takes_vector(y)
        return r
