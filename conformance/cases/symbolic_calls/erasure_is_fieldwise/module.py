from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def parts(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("m",), "float32")):
        m = T.int64()
        z = R.zeros(R.shape([m]), "float32")
        y = R.add(x, x)
        t = (y, z)
        return t

    @R.function
    def want(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return a

    @R.function
    def main(x: R.Tensor((3,), "float32"), s: R.Shape(ndim=1)) -> R.Tensor((3,), "float32"):
        cls = Module
        t = cls.parts(x, s)
        f = t[1]
        r = cls.want(f)
        return r
