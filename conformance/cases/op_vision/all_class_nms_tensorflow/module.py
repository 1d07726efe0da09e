from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(b: R.Tensor((2, 6, 4), "float32"), s: R.Tensor((2, 3, 6), "float32"), i: R.Tensor((), "float32"), t: R.Tensor((), "float32")) -> R.Tuple(R.Tensor((2, 18, 2), "int64"), R.Tensor((2, 18), "float32"), R.Tensor((2,), "int64")):
        y = R.vision.all_class_non_max_suppression(b, s, R.const(3, "int64"), i, t, "tensorflow")
        return y
