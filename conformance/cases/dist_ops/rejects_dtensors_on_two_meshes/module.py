from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "R"), y: R.DTensor((4,), "float32", "mesh[1]", "R, R")) -> R.Object:
        z = R.add(x, y)
        return z
