from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tensor(("n", 2, 3), "float32")) -> R.Tensor(("n", 2, 3, 4), "float32"):
        y = R.image.affine_grid(t, (3, 4))
        return y
