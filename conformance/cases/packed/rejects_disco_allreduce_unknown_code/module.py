from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        a = R.call_dps_packed("runtime.disco.allreduce", (x, R.shape([7]), R.prim_value(T.bool(True))), out_sinfo=R.Tensor((2, 3), "float32"))
        return a
