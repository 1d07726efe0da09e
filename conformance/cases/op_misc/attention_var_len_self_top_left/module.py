from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, "t", 2, 4), "float32"), s: R.Tensor(("b",), "int32"), m: R.Tensor((), "int32")):
        y = R.nn.attention_var_len(q, q, q, s, m, causal_mask="TopLeft")
        return y
