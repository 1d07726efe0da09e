from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 7, 4, 8), "bfloat16"), k: R.Tensor((1, 9, 2, 8), "bfloat16"), v: R.Tensor((1, 9, 2, 5), "bfloat16"), sq: R.Tensor((3,), "int32"), sk: R.Tensor((3,), "int32"), mq: R.Tensor((), "int32"), mk: R.Tensor((), "int32")) -> R.Tensor((1, 7, 4, 5), "bfloat16"):
        y = R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, causal_mask="TopLeft")
        return y
