"""TVM's attention KV-cache object (CALL.KVCACHE.*): ``vm.builtin.attention_kv_cache_create``,
``append``, ``update``, ``view``, ``window_override(_with_sinks)``, ``array_popn``, ``array_clear``, called
as ``relax.frontend.nn.KVCache`` writes them (``R.call_pure_packed`` to create and view,
``R.call_inplace_packed`` to append).

Expected values are hand-written row selections of the inputs (which rows of which input end up where),
worked out from the rules, never from an implementation.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, Shape, module_text

from case_helpers import rng_for

RNG = rng_for("kv_cache")
KV = ["CALL.KVCACHE.1", "CALL.KVCACHE.3", "CALL.PACKED.4", "CALL.IPACKED.1"]
TAGS = ["packed", "kv_cache"]

CREATE = ('R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([{r}, 3]), "float32"), '
          'R.shape([{r}, 3]), R.prim_value(0), sinfo_args=R.Object)')


def _append(src, value):
    return (f'R.call_inplace_packed("vm.builtin.attention_kv_cache_append", {src}, {value}, inplace_indices=[0], '
            'sinfo_args=R.Object())')


def _rows(n):
    return RNG.standard_normal((n, 3)).astype("float32")


def append_cases():
    """create + append (with growth) + view, as the nn frontend writes them."""
    out = []
    grow = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor(("n", 3), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
            n = T.int64()
            c = {CREATE.format(r=3)}
            c1 = {_append("c", "a")}
            c2 = {_append("c1", "b")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, R.shape([2 + n, 3]),
                                   sinfo_args=R.Tensor((2 + n, 3), "float32"))
            return v
    ''')
    a, b1, b5 = _rows(2), _rows(1), _rows(5)
    out.append(Case("create_append_view", grow,
                    runs=[([a, b1], np.concatenate([a, b1])), ([a, b5], np.concatenate([a, b5]))],
                    spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5"], tags=TAGS, oracle="hand",
                    description="an empty cache of 3 reserved rows; the second append grows it (doubling) "
                                "when 2 + n > 3; the view is the appended rows in order"))
    initial = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((1, 3), "float32")) -> R.Tensor((3, 3), "float32"):
            c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", a, R.shape([1, 3]), R.prim_value(-1),
                                   sinfo_args=R.Object)
            c1 = {_append("c", "b")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, sinfo_args=R.Tensor((3, 3), "float32"))
            return v
    ''')
    a2, b = _rows(2), _rows(1)
    out.append(Case("create_with_initial_rows", initial, runs=[([a2, b], np.concatenate([a2, b]))],
                    spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5"], tags=TAGS, oracle="hand",
                    description="a negative fill count keeps the initial rows (2, more than the 1 reserved); "
                                "the one-argument view"))
    fill0 = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((1, 3), "float32"), k: R.Prim("int64")) -> R.Tensor(ndim=2, dtype="float32"):
            c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", a, R.shape([4, 3]), k,
                                   sinfo_args=R.Object)
            c1 = {_append("c", "b")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            return v
    ''')
    out.append(Case("create_fill_count_past_the_reserved_rows", fill0,
                    runs=[([a2, b, Prim(1, "int64")], np.concatenate([a2[:1], b])),
                          ([a2, b, Prim(0, "int64")], b),
                          Fails([a2, b, Prim(5, "int64")], "op_runtime", "a fill count of 5 in 4 reserved rows")],
                    spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5", "DIV.45"], tags=TAGS + ["error"], oracle="hand",
                    description="create's fill count below the initial rows keeps the first ones (the append "
                                "writes after them); one past the reserved rows is an error at create (TVM sets "
                                "it, and the append grows the buffer and copies rows past the old one)"))
    bad_view = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float32"), s: R.Shape(["k"])) -> R.Tensor(ndim=2, dtype="float32"):
            k = T.int64()
            c = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([k, 3]),
                                   sinfo_args=R.Tensor((k, 3), "float32"))
            return v
    ''')
    out.append(Case("view_shape_is_the_fill", bad_view,
                    runs=[([a, Shape([2])], a), Fails([a, Shape([3])], "op_runtime", "3 rows requested, 2 cached"),
                          Fails([a, Shape([1])], "op_runtime", "a view is all cached rows, not the last ones")],
                    spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5"], tags=TAGS + ["error"], oracle="hand"))
    dtype = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float16")) -> R.Object:
            c = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            return c1
    ''')
    out.append(Case("append_dtype_mismatch", dtype, runs=[Fails([a.astype("float16")], "op_runtime")],
                    spec=KV + ["CALL.KVCACHE.2"], tags=TAGS + ["error"], oracle="spec-rule"))
    rows = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 4), "float32")) -> R.Object:
            c = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            return c1
    ''')
    out.append(Case("append_row_shape_mismatch", rows, runs=[Fails([RNG.standard_normal((2, 4)).astype("float32")], "op_runtime")],
                    spec=KV + ["CALL.KVCACHE.2"], tags=TAGS + ["error"], oracle="spec-rule"))
    kind = module_text('''
        @R.function
        def main(a: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", a, R.shape([2, 3]),
                                   sinfo_args=R.Tensor((2, 3), "float32"))
            return v
    ''')
    out.append(Case("view_of_a_tensor", kind, runs=[Fails([a], "type_mismatch")],
                    spec=KV + ["CALL.KVCACHE.5"], tags=TAGS + ["error"], oracle="spec-rule"))
    return out


def update_cases():
    out = []
    upd = module_text(f'''
        @R.function
        def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor(("m", 3), "float32"), d: R.Tensor((1, 3), "float32")) -> R.Tensor((3, 3), "float32"):
            c = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_update", c1, b, inplace_indices=[0],
                                       sinfo_args=R.Object())
            c3 = {_append("c2", "d")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c3, R.shape([3, 3]),
                                   sinfo_args=R.Tensor((3, 3), "float32"))
            return v
    ''')
    a, b, d = _rows(2), _rows(2), _rows(1)
    out.append(Case("update_replaces_the_cached_rows", upd,
                    runs=[([a, b, d], np.concatenate([b, d])),
                          Fails([a, _rows(3), d], "op_runtime", "3 rows for a cache holding 2")],
                    spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.4", "CALL.KVCACHE.5"], tags=TAGS, oracle="hand"))
    return out


def _window_module(fn, sinks_arg):
    return module_text(f'''
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor(("n", 3), "float32")) -> R.Tensor((4, 3), "float32"):
            c = {CREATE.format(r=2)}
            c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_{fn}", c, x, R.prim_value(4){sinks_arg},
                                       inplace_indices=[0], sinfo_args=R.Object())
            c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_{fn}", c1, y, R.prim_value(4){sinks_arg},
                                       inplace_indices=[0], sinfo_args=R.Object())
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, R.shape([4, 3]),
                                   sinfo_args=R.Tensor((4, 3), "float32"))
            return v
    ''')


def window_cases():
    """A window of 4 rows over a cache reserved with 2: rows wrap around (after the sinks)."""
    x, y3, y2 = _rows(3), _rows(3), _rows(2)
    plain = _window_module("window_override", "")
    sinks = _window_module("window_override_with_sinks", ", R.prim_value(1)")
    spec = KV + ["CALL.KVCACHE.5", "CALL.KVCACHE.6"]
    return [
        # x fills rows 0-2 (the buffer grows 2 -> 4); y's first row goes to row 3, the rest wraps to rows 0-1
        Case("window_override_wraps", plain,
             runs=[([x, y3], np.stack([y3[1], y3[2], x[2], y3[0]])),
                   Fails([x, _rows(5)], "op_runtime", "5 rows do not fit a window of 4")],
             spec=spec, tags=TAGS + ["window"], oracle="hand"),
        # with one sink row 0 stays: y's first row goes to row 3, its second to row 1
        Case("window_override_keeps_sinks", sinks,
             runs=[([x, y2], np.stack([x[0], y2[1], x[2], y2[0]])),
                   Fails([x, _rows(4)], "op_runtime", "4 rows do not fit a window of 4 with 1 sink")],
             spec=spec, tags=TAGS + ["window"], oracle="hand"),
        _window_shrinks_case(spec),
    ]


def _window_shrinks_case(spec):
    """A window of 6 rows, then one of 4 on the same cache: fine while the position is within the
    smaller window, an error once the first window's rows left it past (``p <= m``). The rows are
    counted, not drawn, so that the generator's random stream of the other cases stays as it was."""
    mod = module_text(f'''
        @R.function
        def main(x: R.Tensor(("k", 3), "float32"), y: R.Tensor((1, 3), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
            c = {CREATE.format(r=2)}
            c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c, x, R.prim_value(6),
                                       inplace_indices=[0], sinfo_args=R.Object())
            c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c1, y, R.prim_value(4),
                                       inplace_indices=[0], sinfo_args=R.Object())
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            return v
    ''')
    x3 = np.arange(9, dtype="float32").reshape(3, 3)
    x5 = np.arange(15, dtype="float32").reshape(5, 3)
    y = np.full((1, 3), 50, "float32")
    # x3 fills rows 0-2 (position 3 <= 4): y goes to row 3; x5 leaves the position at 5, past a window of 4
    return Case("window_override_position_past_the_window", mod,
                runs=[([x3, y], np.concatenate([x3, y])),
                      Fails([x5, y], "op_runtime", "the window position 5 is past the window of 4 rows")],
                spec=spec + ["DIV.44"], tags=TAGS + ["window"], oracle="hand")


def popn_cases():
    pop = module_text(f'''
        @R.function(pure=False)
        def main(a: R.Tensor((3, 3), "float32"), b: R.Tensor((2, 3), "float32"), k: R.Prim("int64")) -> R.Tuple(R.Tensor(ndim=2, dtype="float32"), R.Tensor(ndim=2, dtype="float32")):
            c = {CREATE.format(r=4)}
            d = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            d1 = {_append("d", "b")}
            _ = R.call_packed("vm.builtin.attention_kv_cache_array_popn", (c1, d1), k, sinfo_args=R.Object)
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            w = R.call_pure_packed("vm.builtin.attention_kv_cache_view", d1, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
            return (v, w)
    ''')
    a, b = _rows(3), _rows(2)
    cases = [Case("array_popn", pop,
                  runs=[([a, b, Prim(1, "int64")], (a[:2], b[:1])), ([a, b, Prim(2, "int64")], (a[:1], b[:0])),
                        Fails([a, b, Prim(3, "int64")], "op_runtime", "the second cache holds 2 rows")],
                  spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5", "CALL.KVCACHE.7", "CALL.PACKED.2"],
                  tags=TAGS + ["impure"], oracle="hand")]
    clear = module_text(f'''
        @R.function(pure=False)
        def main(a: R.Tensor((3, 3), "float32"), b: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            c = {CREATE.format(r=4)}
            c1 = {_append("c", "a")}
            _ = R.call_packed("vm.builtin.attention_kv_cache_array_clear", (c1,), sinfo_args=R.Object)
            c2 = {_append("c1", "b")}
            v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, sinfo_args=R.Tensor((2, 3), "float32"))
            return v
    ''')
    cases.append(Case("array_clear", clear, runs=[([a, b], b)],
                      spec=KV + ["CALL.KVCACHE.2", "CALL.KVCACHE.5", "CALL.KVCACHE.8", "CALL.PACKED.2"],
                      tags=TAGS + ["impure"], oracle="hand"))
    return cases


def cases():
    return append_cases() + update_cases() + window_cases() + popn_cases()


def generate():
    return {"kv_cache": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_kv_cache"])
