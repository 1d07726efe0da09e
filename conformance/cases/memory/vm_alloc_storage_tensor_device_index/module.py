from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(v: R.Tensor((2,), "float32")) -> R.Object:
        s = R.vm.alloc_storage(R.shape([16]), v, R.dtype("uint8"))
        return s
