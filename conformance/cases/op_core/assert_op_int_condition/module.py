from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(c: R.Tensor((), "int32")) -> R.Tuple():
        u = R.assert_op(c, format="c")
        return u
