from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m", 2), "float32")) -> R.Tensor((3,), "int64"):
        s = R.shape_of(x)
        t = R.shape_to_tensor(s)
        return t
