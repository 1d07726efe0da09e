from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 4 + 2",), "float32"):
        n = T.int64()
        @R.function
        def dup(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k * 2",), "float32"):
            w = R.concat((z, z), axis=0)
            return w
        one = R.ones(R.shape([1]), "float32")
        y = R.concat((x, one), axis=0)
        a = dup(x)
        b = dup(y)
        c = R.concat((a, b), axis=0)
        return c
