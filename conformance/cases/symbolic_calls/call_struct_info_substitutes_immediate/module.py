from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def grow(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
        n = T.int64()
        one = R.ones(R.shape([1]), "float32")
        y = R.concat((x, one), axis=0)
        return y

    @R.function
    def take4(v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        w = R.add(v, v)
        return w

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        g = cls.grow(x)
        r = cls.take4(g)
        return r
