from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((3,), "float32", vdevice="llvm:0")) -> R.Tensor((3,), "float32", vdevice="llvm:0"):
        y = R.add(x, x)
        return y
