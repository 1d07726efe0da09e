from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tuple(R.Tensor(ndim=2, dtype="int32"), R.Tensor(ndim=1, dtype="int64")):
        y = R.unique(x, return_counts=True, axis=1)
        return y
