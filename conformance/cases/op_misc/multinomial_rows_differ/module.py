from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((2, 3), "float32"), u: R.Tensor((2, 1), "float32"), i: R.Tensor((3, 1), "int64")):
        y = R.multinomial_from_uniform(p, u, i)
        return y
