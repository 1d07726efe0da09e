from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def pad(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n + 1",), "float32"):
        z = R.zeros(R.shape([1]), "float32")
        y = R.concat((x, z), axis=0)
        return y

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tuple(R.Shape(["m + 1"]), R.Tensor(("m + 1",), "float32")):
        cls = Module
        y = cls.pad(x)
        s = R.shape_of(y)
        r = (s, y)
        return r
