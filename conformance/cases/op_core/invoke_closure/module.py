from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def add_c(x: R.Tensor((3,), "float32"), c: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, c)
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        clo = R.make_closure(cls.add_c, (c,))
        y = R.invoke_closure(clo, (x,), sinfo_args=R.Tensor((3,), "float32"))
        return y
