from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def ident(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        clo = R.make_closure(cls.ident, ())
        y = R.invoke_closure(clo, (x,), sinfo_args=R.Tensor((2,), "float32"))
        return y
