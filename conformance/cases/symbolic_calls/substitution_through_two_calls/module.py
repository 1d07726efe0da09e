from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def double(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        y = R.concat((x, x), axis=0)
        return y

    @R.function
    def fold(y: R.Tensor(("k",), "float32")) -> R.Tensor(("k // 2",), "float32"):
        k = T.int64()
        h = R.strided_slice(y, axes=[0], begin=[0], end=[k // 2])
        return h

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        d = cls.double(x)
        f = cls.fold(d)
        g = R.add(f, x)
        return g
