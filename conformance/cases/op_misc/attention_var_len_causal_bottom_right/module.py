from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 7, 4, 8), "float32"), k: R.Tensor((1, 9, 2, 8), "float32"), v: R.Tensor((1, 9, 2, 5), "float32"), sq: R.Tensor((3,), "int32"), sk: R.Tensor((3,), "int32"), mq: R.Tensor((), "int32"), mk: R.Tensor((), "int32")):
        y = R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="BottomRight")
        return y
