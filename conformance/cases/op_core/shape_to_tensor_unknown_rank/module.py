from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(ndim=-1)) -> R.Tensor(ndim=1, dtype="int64"):
        t = R.shape_to_tensor(s)
        return t
