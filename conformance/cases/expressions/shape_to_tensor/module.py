from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor((3,), "int64"):
        n = T.int64()
        m = T.int64()
        t = R.shape_to_tensor(R.shape([n, m, n * m]))
        return t
