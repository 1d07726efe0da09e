# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float16"), y: R.Tensor((3, 3, 3), dtype="float32"), z: R.Tensor((2, 2, "m"), dtype="int32")) -> R.Tensor((1, 1, 1), dtype="float32"):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            lv: R.Tensor(dtype="int32") = R.match_cast(z, R.Tensor(dtype="int32"))
            lv1: R.Tensor((3, 3, 3), dtype="float32") = R.broadcast_to(y, R.shape([3, 3, 3]))
            lv2: R.Tensor((3, 3, 3), dtype="float32") = R.negative(lv1)
            gv: R.Tensor((3, 3, 3), dtype="float32") = lv2
            gv1: R.Tensor((1, 1, 1), dtype="float32") = R.median(gv, axis=None, keepdims=True)
            lv3: R.Tensor((2, 2, m), dtype="int32") = R.bitwise_not(z)
            lv4: R.Tensor((1, 1, 1), dtype="float32") = R.nn.pad(gv1, pad_width=[0, 0, 0, 0, 0, 0], pad_value=0.0, pad_mode="constant")
            lv5: R.Tensor((1, 1, 1), dtype="float32") = R.nn.relu(lv4)
            lv6: R.Tensor((1, 1, 1), dtype="float32") = R.nn.relu(lv5)
            R.output(gv, gv1)
        gv2: R.Tensor((1, 1, 1), dtype="float32") = R.nn.relu(gv1)
        return gv2