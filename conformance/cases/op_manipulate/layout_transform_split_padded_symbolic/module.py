from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 5), "float32")) -> R.Tensor(("n", 3, 2), "float32"):
        y = R.layout_transform(x, index_map=T.index_map(lambda a, b: (a, b // 2, b % 2)), pad_value=R.prim_value(T.float32(1.5)))
        return y
