from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]")) -> R.DTensor((24,), "float32", "mesh[0]", "R"):
        r: R.DTensor((24,), "float32", "mesh[0]", "R") = R.reshape(x, R.shape([24]))
        return r
