from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor):
        a = R.match_cast(x, R.Tensor(dtype="float32", ndim=2))
        b = R.match_cast(x, R.Tensor(dtype="int32", ndim=1))
        return x
