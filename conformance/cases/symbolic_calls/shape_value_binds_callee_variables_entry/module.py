from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def fold(s: R.Shape(["a", "b"]), x: R.Tensor(("a * b",), "float32")) -> R.Tensor(("b",), "float32"):
        a = T.int64()
        b = T.int64()
        y = R.reshape(x, R.shape([a, b]))
        z = R.max(y, axis=[0])
        return z

    @R.function
    def main(m: R.Tensor(("r", "c"), "float32")) -> R.Tensor(("c",), "float32"):
        r = T.int64()
        c = T.int64()
        cls = Module
        s = R.shape_of(m)
        flat = R.reshape(m, R.shape([r * c]))
        z = cls.fold(s, flat)
        return z
