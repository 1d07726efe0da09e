from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), "float32"), y: R.Tensor((0, 3), "float32")) -> R.Tuple(R.Tensor((), "float32"), R.Tensor((0, 3), "float32")):
        a = R.add(x, x)
        b = R.multiply(y, x)
        return (a, b)
