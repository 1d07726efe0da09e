from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32")):
        n = T.int64()
        y = R.match_cast(x, R.Tensor((n,), "float32"))
        return y
