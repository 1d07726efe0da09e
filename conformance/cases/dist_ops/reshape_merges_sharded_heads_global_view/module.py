from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(o: R.DTensor((4, 3, 2), "float32", "mesh[0]", "S[0]"), w: R.DTensor((8, 5), "float32", "mesh[0]", "S[0]")) -> R.DTensor((3, 5), "float32", "mesh[0]", "R"):
        t: R.DTensor((3, 4, 2), "float32", "mesh[0]", "S[1]") = R.permute_dims(o, [1, 0, 2])
        r: R.DTensor((3, 8), "float32", "mesh[0]", "S[1]") = R.reshape(t, R.shape([3, 8]))
        p: R.DTensor((3, 5), "float32", "mesh[0]", "R") = R.matmul(r, w)
        y: R.DTensor((3, 5), "float32", "mesh[0]", "R") = R.ccl.allreduce(p, op_type="sum")
        return y
