from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16,), "float32"), y: R.Tensor((16,), "float32"), z: R.Tensor((16,), "float32")) -> R.Tuple(R.Tensor((16,), "float32"), R.Tensor((16,), "float32")):
        p = R.multiply(x, y)
        d = R.subtract(p, z)
        f = R.floor(d)
        return (d, f)
