from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main() -> R.Tuple(R.Tensor((), "float32"), R.Tensor((), "int32"), R.Tensor((), "bool"), R.Tensor((), "int8"), R.Tensor((), "float64")):
        a = R.const(1.5, "float32")
        b = R.const(-7, "int32")
        c = R.const(True, "bool")
        d = R.const(-128, "int8")
        e = R.const(0.25, "float64")
        return (a, b, c, d, e)
