from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor(("n",), "int32"))) -> R.Tensor(("n",), "int32"):
        b = t[1]
        return b
