from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def twice(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor(ndim=1, dtype="float32")):
        R.func_attr({"a_bool": True, "an_int": 3, "a_float": 1.5, "a_str": "s", "a_none": None, "a_list": [1, 2], "a_dict": {"k": "v"}})
        cls = Module
        n = T.int64()
        y = R.match_cast(x, R.Tensor((n,), "float32"))
        z = cls.twice(y)
        s = R.shape([n + 1, n * 2])
        return (z, s)
