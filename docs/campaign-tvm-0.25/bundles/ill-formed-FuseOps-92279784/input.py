# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", 1, 3), dtype="float32")) -> R.Tensor(("m", 1, 3), dtype="float32"):
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor((m, 1, 3), dtype="float32") = R.negative(x)
            lv1: R.Tensor((m, 1, 3), dtype="float32") = R.nn.relu(lv)
            gv: R.Tensor((m, 1, 3), dtype="float32") = R.multiply(lv1, R.const(2.0, "float32"))
            lv2: R.Tensor((m, 1, 3), dtype="float32") = R.match_cast(lv1, R.Tensor((m, 1, 3), dtype="float32"))
            lv3: R.Tensor((m, 1, 3), dtype="float32") = R.nn.relu(lv2)
            R.output(gv)
        return gv