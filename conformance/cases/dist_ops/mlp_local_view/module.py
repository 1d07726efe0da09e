from tvm.script.parser import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), I.Range(0, 4))]})

    @R.function
    def main(x: R.DTensor((4, 8), "float32", "mesh[0]", "R"), w1: R.DTensor((8, 6), "float32", "mesh[0]", "S[1]"), w2: R.DTensor((6, 8), "float32", "mesh[0]", "S[0]")) -> R.DTensor((4, 8), "float32", "mesh[0]", "R"):
        h: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]") = R.matmul(x, w1)
        g: R.DTensor((4, 6), "float32", "mesh[0]", "S[1]") = R.nn.relu(h)
        y: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.matmul(g, w2)
        z: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.ccl.allreduce(y, op_type="sum")
        r: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.dist.redistribute(z, "mesh[0]", "S[0]")
        a: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.dist.annotate_sharding(r, device_mesh="mesh[0]", placement="S[0]")
        q: R.DTensor((4, 8), "float32", "mesh[0]", "S[0]") = R.add(a, a)
        o: R.DTensor((4, 8), "float32", "mesh[0]", "R") = R.dist.redistribute(q, "mesh[0]", "R")
        return o
