from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4)), R.device_mesh((4,), [4, 5, 6, 7])]})

    @R.function
    def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")) -> R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"):
        y: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R") = R.add(x, R.dist.const(2.5, R.DTensor((), "float32", "mesh[0]", "R, R")))
        return y
