from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n", "m"]), x: R.Tensor(("n", "m"), "float32")) -> R.Shape(["m", "n"]):
        n = T.int64()
        m = T.int64()
        r = R.shape([m, n])
        return r
