from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((3, 6), "float32"), u: R.Tensor(("n", 1), "float32"), i: R.Tensor(("n", 1), "int32")):
        y = R.multinomial_from_uniform(p, u, i, dtype="int32")
        return y
