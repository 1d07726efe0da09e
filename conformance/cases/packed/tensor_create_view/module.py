from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), off: R.Prim("int64")) -> R.Tensor((3,), "float32"):
        v = R.call_pure_packed("runtime.TVMTensorCreateView", x, R.shape([3]), R.dtype("float32"), off,
                               sinfo_args=(R.Tensor((3,), "float32"),))
        return v
