from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.call_py_func("conformance.not_registered", x, out_sinfo=R.Tensor((3,), "float32"))
        return y
