from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]"), y: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]")) -> R.DTensor((4, 8), "float32", "mesh[1]", "S[0], R"):
        s: R.DTensor((8, 4), "float32", "mesh[1]", "S[0], S[1]") = R.multiply(x, y)
        t: R.DTensor((4, 8), "float32", "mesh[1]", "S[1], S[0]") = R.permute_dims(s, [1, 0])
        u: R.DTensor((4, 8), "float32", "mesh[1]", "S[0], R") = R.dist.redistribute(t, "mesh[1]", "S[0], R")
        return u
