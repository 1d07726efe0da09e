from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        p = R.prim_value(3)
        q = R.match_cast(p, R.Prim(value=4))
        return q
