from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((8,), "float32")):
        q = R.divide(x, R.const(0.3, "float32"))
        r = R.round(q)
        return (q, r)
