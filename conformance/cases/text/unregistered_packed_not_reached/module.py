from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
        if c:
            y = R.call_packed("conformance.not_registered", x, sinfo_args=R.Tensor((3,), "float32"))
        else:
            y = x
        return y
