from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), i: R.Tensor((5,), "int64")) -> R.Tuple(R.Tensor((3, 5), "float32"), R.Tensor((3, 5), "float32")):
        y = (R.take(x, i, axis=1, mode='clip'), R.take(x, i, axis=1, mode='wrap'))
        return y
