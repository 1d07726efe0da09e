from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((2,), "float32"), c: R.Prim("bool")) -> R.Tensor(ndim=1, dtype="float32"):
        if c:
            r = x
        else:
            r = y
        return r
