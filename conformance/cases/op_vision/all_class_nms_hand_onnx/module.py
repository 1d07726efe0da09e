from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((1, 3, 4), "float32"), s: R.Tensor((1, 2, 3), "float32"), m: R.Tensor((), "int64"), i: R.Tensor((), "float32"), t: R.Tensor((), "float32")) -> R.Tuple(R.Tensor((6, 3), "int64"), R.Tensor((1,), "int64")):
        y = R.vision.all_class_non_max_suppression(b, s, m, i, t)
        return y
