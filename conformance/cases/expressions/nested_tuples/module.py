from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((3,), "float32"), R.Tuple(R.Tensor((2,), "float32"), R.Tuple), R.Tensor((2,), "float32")):
        t = (x, (y, x))
        inner = t[1]
        a = inner[0]
        b = inner[1]
        u = (a, (b, R.tuple()), t[0])
        return u
