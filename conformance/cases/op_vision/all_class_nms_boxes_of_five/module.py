from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((1, 3, 5), "float32"), s: R.Tensor((1, 2, 3), "float32"), m: R.Tensor((), "int64"), i: R.Tensor((), "float32"), t: R.Tensor((), "float32")):
        y = R.vision.all_class_non_max_suppression(b, s, m, i, t)
        return y
