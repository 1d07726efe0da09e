"""TVM's paged KV cache (CALL.PAGEDKV.*): ``vm.builtin.paged_attention_kv_cache_create``, the
``vm.builtin.kv_state_*`` sequence functions and the ``attention_kv_cache_*`` methods, called as
``relax.frontend.nn.llm``'s ``PagedKVCache`` emits them (``R.call_pure_packed`` to create,
``R.call_dps_packed`` for the per-layer attention over a fused QKV) and as a serving loop calls the
sequence functions (``R.call_packed`` in an impure function).

Expected values come from an oracle written here: each sequence's history is a list of raw
key/value rows per layer, rotary embedding and causal attention are computed per token and head in
float64 with plain loops. Page counts are worked out by hand from CALL.PAGEDKV.2-5 (the comments
say how).
"""

import math

import numpy as np

from relax_conformance.gen import Case, Fails, Prim, module_text

from case_helpers import rng_for

RNG = rng_for("paged_kv_cache")
TAGS = ["packed", "paged_kv_cache"]
BASE = ["CALL.PAGEDKV.1", "CALL.PAGEDKV.3", "CALL.PAGEDKV.7", "CALL.PACKED.2", "CALL.PACKED.4"]
FUSED = "vm.builtin.attention_kv_cache_attention_with_fused_qkv"


def create_call(layers=2, hq=4, hkv=2, d=8, page=4, capacity=32, batch=4, chunk=16, mode=1, scale=1.0,
                theta=10000.0, sliding=0, extra=(), drop=0):
    """The ``create`` call with 28 arguments; the kernel slots (13-27) hold placeholders."""
    args = [f"R.shape([{batch}, {capacity}, {chunk}, {page}, {sliding}])", f"R.shape([0, {layers}])",
            f"R.prim_value({hq})", f"R.prim_value({hkv})", f"R.prim_value({d})", f"R.prim_value({d})",
            "R.shape([" + ", ".join(["0"] * layers) + "])", "R.prim_value(0)", f"R.prim_value({mode})",
            f"R.prim_value({scale!r})", f"R.prim_value({theta!r})", "R.prim_value(0)",
            'R.zeros(R.shape([]), "float32")'] + ["R.prim_value(0)"] * 15 + list(extra)
    args = args[:len(args) - drop]
    return ('R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", ' + ", ".join(args)
            + ", sinfo_args=R.Object)")


def _rope(x, pos, scale, theta):
    """Rotate-half rotary embedding of one row (heads, D) at position ``pos``, in float64."""
    x = x.astype(np.float64)
    d = x.shape[-1]
    y = np.empty_like(x)
    for i in range(d // 2):
        angle = pos * scale / theta ** (2 * i / d)
        c, s = math.cos(angle), math.sin(angle)
        y[:, i] = x[:, i] * c - x[:, i + d // 2] * s
        y[:, i + d // 2] = x[:, i + d // 2] * c + x[:, i] * s
    return y


class Prog:
    """A program and its expected outputs, built step by step (the oracle follows every step)."""

    def __init__(self, **cfg):
        self.cfg = dict(layers=2, hq=4, hkv=2, d=8, mode=1, scale=1.0, theta=10000.0)
        self.cfg.update({k: v for k, v in cfg.items() if k in self.cfg})
        self.lines = [f"c = {create_call(**cfg)}"]
        self.params, self.inputs, self.outs, self.expected = [], [], [], []
        self.hist = {}      # seq -> per layer list of (k_raw, v) rows (each (hkv, D))
        self.n = 0

    def _name(self, stem):
        self.n += 1
        return f"{stem}{self.n}"

    def call(self, fn, *args):
        self.lines.append(f'{self._name("_")} = R.call_packed("vm.builtin.{fn}", c{"".join(", " + a for a in args)}, '
                          f'sinfo_args=R.Object)')

    def add(self, seq):
        self.call("kv_state_add_sequence", f"R.prim_value({seq})")
        self.hist[seq] = [[] for _ in range(self.cfg["layers"])]

    def remove(self, seq):
        self.call("kv_state_remove_sequence", f"R.prim_value({seq})")
        del self.hist[seq]

    def fork(self, parent, child, pos):
        self.call("kv_state_fork_sequence", f"R.prim_value({parent})", f"R.prim_value({child})", f"R.prim_value({pos})")
        if parent in self.hist:            # else a failing case
            cut = len(self.hist[parent][0]) if pos == -1 else pos
            self.hist[child] = [list(rows[:cut]) for rows in self.hist[parent]]

    def popn(self, seq, n):
        self.call("kv_state_popn", f"R.prim_value({seq})", f"R.prim_value({n})")
        self.hist[seq] = [rows[:len(rows) - n] for rows in self.hist[seq]]

    def output(self, var, sinfo, value):
        self.outs.append((var, sinfo))
        self.expected.append(value)

    def pages(self, hand_count):
        v = self._name("free")
        self.lines.append(f'{v} = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, '
                          f'sinfo_args=R.Prim("int64"))')
        self.output(v, 'R.Prim("int64")', Prim(hand_count, "int64"))

    def forward(self, batch, positions=False, end=True, poison=None):
        """``batch``: (seq, n) pairs; every layer attends once, each output returned; ``poison(layer,
        qkv)`` may change a layer's fused qkv in place (a non-finite value)."""
        c = self.cfg
        ids = ", ".join(str(s) for s, _ in batch)
        lens = ", ".join(str(n) for _, n in batch)
        self.call("kv_state_begin_forward", f"R.shape([{ids}])", f"R.shape([{lens}])")
        total = sum(n for _, n in batch)
        known = all(s in self.hist for s, _ in batch)      # else a failing case: no oracle needed
        if positions:
            v = self._name("pos")
            self.lines.append(f'{v} = R.call_packed("vm.builtin.attention_kv_cache_get_query_positions", c, '
                              f'sinfo_args=R.Tensor(({total},), "int32"))')
            self.output(v, f'R.Tensor(({total},), "int32")',
                        np.concatenate([np.arange(len(self.hist[s][0]), len(self.hist[s][0]) + n) for s, n in batch])
                        .astype("int32"))
        heads = c["hq"] + 2 * c["hkv"]
        sm = 1.0 / math.sqrt(c["d"])
        for layer in range(c["layers"]):
            qkv = RNG.standard_normal((total, heads, c["d"])).astype("float32")
            if poison is not None:
                poison(layer, qkv)
            p = self._name("qkv")
            self.params.append(f'{p}: R.Tensor(({total}, {heads}, {c["d"]}), "float32")')
            self.inputs.append(qkv)
            o = self._name("o")
            self.lines.append(f'{o} = R.call_dps_packed("{FUSED}", (c, R.prim_value({layer}), R.prim_value({sm!r}), '
                              f'{p}), out_sinfo=R.Tensor(({total}, {c["hq"]}, {c["d"]}), "float32"))')
            self.output(o, f'R.Tensor(({total}, {c["hq"]}, {c["d"]}), "float32")',
                        self._attend(qkv, batch, layer, sm) if known else None)
        if end:
            self.call("kv_state_end_forward")

    def _attend(self, qkv, batch, layer, sm):
        c = self.cfg
        hq, hkv, mode = c["hq"], c["hkv"], c["mode"]
        out = np.zeros((qkv.shape[0], hq, c["d"]))
        row = 0
        for s, n in batch:
            rows = self.hist[s][layer]
            for i in range(n):
                rows.append((qkv[row + i, hq:hq + hkv], qkv[row + i, hq + hkv:]))
            for i in range(n):
                pos = len(rows) - n + i
                q = qkv[row + i, :hq].astype(np.float64)
                if mode:
                    q = _rope(q, pos, c["scale"], c["theta"])
                keys = [(_rope(k, j, c["scale"], c["theta"]) if mode else k.astype(np.float64))
                        for j, (k, _) in enumerate(rows[:pos + 1])]
                for h in range(hq):
                    g = h // (hq // hkv)
                    sc = np.array([sm * float(q[h] @ k[g]) for k in keys])
                    w = np.exp(sc - sc.max())
                    w /= w.sum()
                    out[row + i, h] = sum(wj * rows[j][1][g].astype(np.float64) for j, wj in enumerate(w))
            row += n
        return out.astype("float32")

    def debug(self, seq, start, end):
        c = self.cfg
        shape = f'({c["layers"]}, {end - start}, {c["hkv"]}, {c["d"]})'
        kv = self._name("kv")
        self.lines.append(f'{kv} = R.call_dps_packed("vm.builtin.attention_kv_cache_debug_get_kv", (c, R.prim_value({seq}), '
                          f'R.prim_value({start}), R.prim_value({end})), out_sinfo=[R.Tensor({shape}, "float32"), '
                          f'R.Tensor({shape}, "float32")])')
        ks = np.zeros((c["layers"], end - start, c["hkv"], c["d"]))
        vs = np.zeros_like(ks)
        for layer in range(c["layers"] if end > start else 0):
            for j in range(start, end):
                k, v = self.hist[seq][layer][j]
                ks[layer, j - start] = _rope(k, j, c["scale"], c["theta"]) if c["mode"] == 1 else k
                vs[layer, j - start] = v
        for i, arr in enumerate((ks, vs)):
            self.lines.append(f"{kv}_{i} = {kv}[{i}]")
            self.output(f"{kv}_{i}", f'R.Tensor({shape}, "float32")', arr.astype("float32"))

    def module(self):
        body = "\n    ".join(self.lines)
        if self.outs:
            ret = "R.Tuple(" + ", ".join(s for _, s in self.outs) + ")"
            body += f"\n    r = ({', '.join(v for v, _ in self.outs)},)\n    return r"
        else:
            ret = "R.Object"
            body += "\n    return c"
        params = ", ".join(self.params)
        return module_text(f"@R.function(pure=False)\ndef main({params}) -> {ret}:\n    {body}\n")

    def case(self, name, spec, description, tags=()):
        return Case(name, self.module(), runs=[(self.inputs, tuple(self.expected))], spec=BASE + list(spec),
                    tags=TAGS + list(tags), oracle="numpy-formula", description=description, rtol=1e-4, atol=1e-5)

    def failing(self, name, kind, spec, description):
        return Case(name, self.module(), runs=[Fails(self.inputs, kind, description)], spec=BASE + list(spec),
                    tags=TAGS + ["error"], oracle="spec-rule", description=description)


ATT = ["CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2"]


def value_cases():
    out = []
    for mode, label in ((1, "normal"), (0, "none"), (2, "inline")):
        p = Prog(mode=mode)
        p.add(0)
        p.forward([(0, 5)])            # 5 tokens: pages 0 and 1 of 9 (32 / 4 + 1): 7 free
        p.pages(7)
        p.forward([(0, 1)])
        p.debug(0, 0, 6)
        out.append(p.case(f"prefill_then_decode_rope_{label}", ATT + ["CALL.PAGEDKV.2", "CALL.PAGEDKV.6", "CALL.PAGEDKV.10"],
                          f"one sequence, two layers, grouped heads (4 query, 2 key/value), rope mode {mode}: a "
                          "prefill of 5 tokens then one decode step; the stored keys read back"))
    p = Prog(scale=0.5, theta=500.0)
    p.add(3)
    p.add(7)
    p.forward([(7, 3), (3, 5)], positions=True)
    p.forward([(3, 1), (7, 1)], positions=True)
    p.debug(7, 1, 4)
    out.append(p.case("batch_of_two_sequences", ATT + ["CALL.PAGEDKV.10"],
                      "two sequences prefilled in one forward (in batch order 7, 3) then decoded together; each "
                      "token attends only to its own sequence; the query positions; rope scale 0.5, theta 500"))
    return out


def fork_cases():
    out = []
    p = Prog()
    p.add(0)
    p.forward([(0, 6)])                # pages 0-1: 7 of 9 free
    p.fork(0, 1, 5)                    # shares page 0, copies 1 slot of page 1: 6 free
    p.fork(0, 2, -1)                   # at the end (6): shares page 0, copies 2 slots: 5 free
    p.pages(5)
    p.forward([(0, 1), (1, 1), (2, 1)])    # every sequence writes into its own second page: 5 free
    p.pages(5)
    p.debug(1, 0, 6)
    out.append(p.case("fork_mid_page_and_at_the_end", ATT + ["CALL.PAGEDKV.2", "CALL.PAGEDKV.4", "CALL.PAGEDKV.6",
                                                             "CALL.PAGEDKV.10"],
                      "a parent of 6 tokens forked at 5 and at its end; a decode step on all three sees each "
                      "one's own history; shared full pages, copied partial pages"))
    p = Prog()
    p.add(0)
    p.forward([(0, 8)])                # two full pages: 7 free
    p.fork(0, 1, -1)                   # shares both pages: 7 free
    p.popn(1, 3)                       # the child's partial page 1 is shared: copied (6 free)
    p.pages(6)
    p.forward([(1, 2)])                # the child writes 5-6 into its copy: 6 free
    p.debug(0, 0, 8)
    p.debug(1, 0, 7)
    out.append(p.case("popn_into_a_shared_page", ATT + ["CALL.PAGEDKV.2", "CALL.PAGEDKV.4", "CALL.PAGEDKV.5",
                                                        "CALL.PAGEDKV.6", "CALL.PAGEDKV.10"],
                      "a child forked at its parent's end pops 3 tokens into a page it shares and appends 2: "
                      "the parent's tokens stay as they were"))
    p = Prog()
    p.add(0)
    p.forward([(0, 6)])
    p.popn(0, 3)                       # 3 tokens in page 0: 8 free
    p.pages(8)
    p.forward([(0, 2)])
    p.debug(0, 0, 5)
    out.append(p.case("popn_then_decode", ATT + ["CALL.PAGEDKV.2", "CALL.PAGEDKV.5", "CALL.PAGEDKV.6", "CALL.PAGEDKV.10"],
                      "popping 3 of 6 tokens frees a page; the next forward attends to the 3 kept tokens only"))
    return out


def state_cases():
    p = Prog()
    p.add(0)
    p.add(1)
    p.forward([(0, 5), (1, 4)])        # 2 + 1 pages: 6 free
    p.pages(6)
    p.remove(0)                        # 8 free
    p.pages(8)
    p.call("kv_state_clear")           # 9 free, no sequences
    p.pages(9)
    p.add(0)
    p.forward([(0, 2)])
    for fn, dtype, val in (("get_total_sequence_length", "int64", 2), ("empty", "bool", False)):
        v = p._name("q")
        p.lines.append(f'{v} = R.call_packed("vm.builtin.attention_kv_cache_{fn}", c, sinfo_args=R.Prim("{dtype}"))')
        p.output(v, f'R.Prim("{dtype}")', Prim(val, dtype))
    return [p.case("remove_and_clear", ATT + ["CALL.PAGEDKV.2", "CALL.PAGEDKV.6"],
                   "removing a sequence returns its pages, clearing returns all; a new sequence 0 after the "
                   "clear starts empty")]


def error_cases():
    out = []

    def err(name, build, spec, description, kind="op_runtime", **cfg):
        p = Prog(**cfg)
        build(p)
        out.append(p.failing(name, kind, spec, description))

    err("begin_forward_of_an_unknown_sequence", lambda p: (p.add(0), p.forward([(1, 2)])), [],
        "the sequence 1 was never added")
    err("add_an_existing_sequence", lambda p: (p.add(0), p.add(0)), [], "the sequence 0 is already in the cache")
    err("fork_of_a_missing_parent", lambda p: (p.add(0), p.fork(2, 1, -1)), ["CALL.PAGEDKV.4"],
        "the parent 2 is not in the cache")
    err("fork_past_the_parent_length", lambda p: (p.add(0), p.forward([(0, 3)]), p.fork(0, 1, 4)),
        ["CALL.PAGEDKV.4", "CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2"], "a fork at 4 of a parent of 3 tokens")
    err("popn_past_the_length", lambda p: (p.add(0), p.forward([(0, 3)]), p.popn(0, 4)),
        ["CALL.PAGEDKV.5", "CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2"], "popping 4 of 3 tokens")
    err("begin_forward_twice", lambda p: (p.add(0), p.forward([(0, 2)], end=False), p.forward([(0, 1)])),
        ["CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2", "DIV.PAGEDKV.1"], "a second begin_forward before end_forward")
    err("end_forward_without_begin", lambda p: (p.add(0), p.call("kv_state_end_forward")), ["DIV.PAGEDKV.1"],
        "no forward is open")
    err("sequence_change_inside_a_forward", lambda p: (p.add(0), p.forward([(0, 2)], end=False), p.add(1)),
        ["CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2", "DIV.PAGEDKV.1"], "adding a sequence while a forward is open")
    err("capacity_exceeded", lambda p: (p.add(0), p.forward([(0, 13)])), [],
        "13 tokens need 4 pages, a capacity of 8 tokens in pages of 4 has 3", capacity=8)
    err("batch_larger_than_the_sequence_count", lambda p: (p.add(0), p.add(1), p.forward([(0, 1), (1, 1)])),
        ["DIV.PAGEDKV.1"], "2 sequences in a forward of a cache made for 1", batch=1)
    err("repeated_sequence_in_a_batch", lambda p: (p.add(0), p.forward([(0, 1), (0, 1)])), ["DIV.PAGEDKV.1"],
        "the sequence 0 twice in one forward")
    err("forward_larger_than_the_chunk", lambda p: (p.add(0), p.forward([(0, 9)])), ["DIV.PAGEDKV.1"],
        "9 tokens in one forward of a cache whose prefill chunk is 8", chunk=8)

    def attention_outside(p):
        p.add(0)
        p.forward([(0, 2)])
        p.params.append('x: R.Tensor((2, 8, 8), "float32")')
        p.inputs.append(RNG.standard_normal((2, 8, 8)).astype("float32"))
        p.lines.append(f'late = R.call_dps_packed("{FUSED}", (c, R.prim_value(0), R.prim_value(0.25), x), '
                       'out_sinfo=R.Tensor((2, 4, 8), "float32"))')
        p.output("late", 'R.Tensor((2, 4, 8), "float32")', None)
    err("attention_outside_a_forward", attention_outside, ["CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2"],
        "the attention after end_forward")

    def wrong_tokens(p):
        p.add(0)
        p.call("kv_state_begin_forward", "R.shape([0])", "R.shape([3])")
        p.params.append('x: R.Tensor((2, 8, 8), "float32")')
        p.inputs.append(RNG.standard_normal((2, 8, 8)).astype("float32"))
        p.lines.append(f'o = R.call_dps_packed("{FUSED}", (c, R.prim_value(0), R.prim_value(0.25), x), '
                       'out_sinfo=R.Tensor((2, 4, 8), "float32"))')
        p.output("o", 'R.Tensor((2, 4, 8), "float32")', None)
    err("attention_token_count_mismatch", wrong_tokens, ["CALL.PAGEDKV.8"],
        "a fused qkv of 2 tokens for a forward appending 3")

    def bad_layer(p):
        p.add(0)
        p.call("kv_state_begin_forward", "R.shape([0])", "R.shape([2])")
        p.params.append('x: R.Tensor((2, 8, 8), "float32")')
        p.inputs.append(RNG.standard_normal((2, 8, 8)).astype("float32"))
        p.lines.append(f'o = R.call_dps_packed("{FUSED}", (c, R.prim_value(2), R.prim_value(0.25), x), '
                       'out_sinfo=R.Tensor((2, 4, 8), "float32"))')
        p.output("o", 'R.Tensor((2, 4, 8), "float32")', None)
    err("attention_layer_out_of_range", bad_layer, ["CALL.PAGEDKV.8"], "the layer 2 of a cache of 2 layers")
    err("debug_get_kv_of_an_empty_range", lambda p: (p.add(0), p.forward([(0, 3)]), p.debug(0, 2, 2)),
        ["CALL.PAGEDKV.8", "CALL.PAGEDKV.9", "CALL.DPS.2", "CALL.PAGEDKV.10"], "the range [2, 2) is empty")
    err("create_with_27_arguments", lambda p: None, [], "create takes 28 or 29 arguments", kind="arity_mismatch",
        drop=1)
    err("create_with_a_sliding_window", lambda p: None, [], "the sliding window is not specified",
        kind="unsupported", sliding=1)
    return out


def masked_value_cases():
    """CALL.PAGEDKV.8, DIV.PAGEDKV.2 (after the others: their random inputs stay as they were)."""
    out = []
    p = Prog()
    p.add(0)

    def inf_value(layer, qkv):
        if layer == 0:
            qkv[3, 4 + 2] = np.inf     # token 3's value, key/value head 0 (heads: 4 query, 2 key, 2 value)
    p.forward([(0, 5)], poison=inf_value)
    p.forward([(0, 1)])
    out.append(p.case("masked_infinite_value", ATT + ["DIV.PAGEDKV.2"],
                      "a prefill of 5 tokens whose token 3 holds an infinite value in layer 0: tokens 0-2 do not "
                      "attend to it and stay finite; token 3, token 4 and the next decode step see it with a "
                      "positive weight: infinite in the query heads of that key/value head"))
    return out


def cases():
    return value_cases() + fork_cases() + state_cases() + error_cases() + masked_value_cases()


def generate():
    return {"paged_kv_cache": cases()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_paged_kv_cache"])
