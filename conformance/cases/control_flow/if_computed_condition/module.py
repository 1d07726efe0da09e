from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((), "int32"), b: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        c = R.greater(a, b)
        if c:
            r = R.subtract(a, b)
        else:
            r = R.subtract(b, a)
        return r
