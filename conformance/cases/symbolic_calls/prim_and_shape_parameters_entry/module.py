from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def widen(k: R.Prim(value="n"), s: R.Shape(["n + 1", "n * 3"])) -> R.Shape(["n * 3", "n + 1", "n"]):
        n = T.int64()
        r = R.shape([n * 3, n + 1, n])
        return r

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Shape(["m * 3", "m + 1", "m"]):
        m = T.int64()
        cls = Module
        r = cls.widen(R.prim_value(m), R.shape([m + 1, m * 3]))
        return r
