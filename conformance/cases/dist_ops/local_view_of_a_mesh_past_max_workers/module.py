from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((1048576, 1048576), I.Range(0, 1099511627776))]})

    @R.function
    def main(x: R.DTensor((4,), "float32", "mesh[0]", "R, R")) -> R.DTensor((4,), "float32", "mesh[0]", "R, R"):
        return x
