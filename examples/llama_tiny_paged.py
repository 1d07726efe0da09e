"""The tiny Llama of ``llama_tiny.py`` with a paged KV cache, as TVM's ``relax.frontend.nn.llm`` and MLC
write it (CALL.PAGEDKV.*).

* ``create_cache() -> R.Object``: ``vm.builtin.paged_attention_kv_cache_create`` for every layer
  (normal rope mode with the model's theta; the kernel arguments are placeholders, CALL.PAGEDKV.1);
* ``prefill(tokens (1, n), cache, *weights)`` and ``decode(token (1, 1), cache, *weights)`` -> logits of
  the last position: pure dataflow functions whose attention is one
  ``R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (cache, layer, scale,
  qkv))`` per layer over the fused query/key/value heads; the cache applies the rotary embedding and
  keeps the keys and values.

The serving loop (``generate``) manages the sequence on the host, as MLC's engine does: it adds
sequence 0, and brackets every call with ``kv_state_begin_forward`` / ``kv_state_end_forward``. The
weights are those of ``llama_tiny.LlamaTiny``, so the tokens must equal the other styles'.

    python examples/llama_tiny_paged.py --impl ref,jax --tokens 8
    python examples/llama_tiny_paged.py --impl ref,jax --dtype bfloat16

With ``Config(dtype="bfloat16")`` (``--dtype bfloat16``) the weights, activations, the fused
query/key/value heads, the attention output and the cache's pages are bfloat16 (the cache's scores,
softmax and sums are float32 and rounded, CALL.PAGEDKV.8).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, List, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import llama_tiny  # noqa: E402
from relax_ref import IRModule  # noqa: E402
from relax_ref.builder import BlockBuilder, Object, Tensor, op, prim_value, shape, var  # noqa: E402
from relax_ref.frontend import nn  # noqa: E402
from relax_ref.frontend.nn import emit  # noqa: E402
from relax_ref.ir import expr as rx  # noqa: E402
from relax_ref.ir import prim_expr as P  # noqa: E402

FUSED = "vm.builtin.attention_kv_cache_attention_with_fused_qkv"


def create_args(cfg: llama_tiny.Config, capacity: int, page_size: int) -> List[rx.Expr]:
    """``create``'s 28 arguments (CALL.PAGEDKV.1): one sequence, ``capacity`` tokens, the pages of
    ``cfg.dtype`` (the dtype witness ``a12``)."""
    d = cfg.head_dim
    args = [shape([1, capacity, capacity, page_size, 0]), shape([0, cfg.num_layers]), prim_value(cfg.num_heads),
            prim_value(cfg.num_kv_heads), prim_value(d), prim_value(d), shape([0] * cfg.num_layers),
            prim_value(False), prim_value(1), prim_value(1.0, "float64"), prim_value(cfg.rope_theta, "float64"),
            prim_value(0), op.zeros(shape([]), cfg.dtype)]
    return args + [prim_value(0)] * 15


def _attention(attn: nn.Attention, x: rx.Expr, cache: rx.Expr, layer: int, dtype: str) -> rx.Var:
    _, n, _ = x.struct_info.shape_values
    d = attn.head_dim
    heads = [emit(op.reshape(proj.forward(x), [n, h, d]))
             for proj, h in ((attn.q_proj, attn.num_heads), (attn.k_proj, attn.num_kv_heads),
                             (attn.v_proj, attn.num_kv_heads))]
    qkv = emit(op.concat(heads, axis=1))
    args = rx.Tuple((cache, prim_value(layer), prim_value(1.0 / math.sqrt(d), "float64"), qkv))
    o = emit(op.call_dps_packed(FUSED, args, out_sinfo=Tensor((n, attn.num_heads, d), dtype)))
    return attn.o_proj.forward(emit(op.reshape(o, [1, n, attn.num_heads * d])))


def paged_forward(model: llama_tiny.LlamaTiny, tokens: rx.Expr, cache: rx.Expr) -> rx.Var:
    """The logits of the last position ``(1, vocab)``; the cache holds the tokens' keys and values."""
    _, n = tokens.struct_info.shape_values
    h = model.embed.forward(tokens)
    for i, layer in enumerate(model.layers):
        h = emit(op.add(h, _attention(layer.attn, layer.input_norm.forward(h), cache, i,
                                       model.cfg.dtype)))
        h = emit(op.add(h, layer.mlp.forward(layer.post_norm.forward(h))))
    if not (isinstance(n, P.IntImm) and n.value == 1):
        h = emit(op.strided_slice(h, axes=[1], begin=[n - 1], end=[n], assume_inbound=True))
    logits = model.lm_head.forward(model.norm.forward(h))
    return emit(op.reshape(logits, [1, model.cfg.vocab_size]))


def build_paged_module(model: llama_tiny.LlamaTiny, capacity: int = 64, page_size: int = 16) -> IRModule:
    bb = BlockBuilder()
    with bb.function("create_cache", []):
        c = emit(op.call_pure_packed("vm.builtin.paged_attention_kv_cache_create",
                                     *create_args(model.cfg, capacity, page_size), sinfo_args=Object()))
        bb.emit_func_output(c)
    n = bb.sym_var("n")
    tokens = var("tokens", Tensor((1, n), "int32"))
    nn.build_function(bb, "prefill", [tokens, var("cache", Object())], model, lambda t, c: paged_forward(model, t, c))
    token = var("token", Tensor((1, 1), "int32"))
    nn.build_function(bb, "decode", [token, var("cache", Object())], model, lambda t, c: paged_forward(model, t, c))
    return bb.get()


def generate(call, ops: Any, weights: List[np.ndarray], prompt: Sequence[int], num_tokens: int) -> List[int]:
    """Greedy decoding; ``call(entry, *args)`` runs a function of the module, ``ops`` the cache's
    sequence functions (:class:`relax_ref.interp.paged_kv_cache.PagedOps`) as the host calls them."""
    from relax_ref.values import ShapeValue

    cache = call("create_cache")
    ops.add_sequence(cache, 0)

    def step(entry: str, toks: Sequence[int]) -> np.ndarray:
        ops.begin_forward(cache, ShapeValue([0]), ShapeValue([len(toks)]))
        logits = call(entry, np.asarray([list(toks)], "int32"), cache, *weights)
        ops.end_forward(cache)
        return np.asarray(logits)

    logits = step("prefill", prompt)
    out: List[int] = []
    for i in range(num_tokens):
        out.append(int(np.argmax(logits[0])))
        if i + 1 < num_tokens:
            logits = step("decode", [out[-1]])
    return out


def runner(impl: str, mod: IRModule):
    """``(call, ops)`` for ``ref`` or ``jax``."""
    if impl == "ref":
        import relax_ref
        from relax_ref.interp.paged_kv_cache import NUMPY_PAGED
        return (lambda entry, *a: relax_ref.evaluate(mod, entry, *a)), NUMPY_PAGED
    import relax_jax
    from relax_jax.paged_kv_cache import JAX_PAGED
    exe = relax_jax.compile(mod)
    return (lambda entry, *a: exe(entry, *a)), JAX_PAGED


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", default="ref,jax")
    p.add_argument("--tokens", type=int, default=8)
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                   help="dtype of the weights, activations and pages")
    args = p.parse_args(argv)
    model = llama_tiny.make_model(0, llama_tiny.Config(dtype=args.dtype))
    mod = build_paged_module(model)
    for impl in args.impl.split(","):
        call, ops = runner(impl, mod)
        print(impl, generate(call, ops, model.param_arrays(), [1, 2, 3, 4, 5], args.tokens))
    return 0


if __name__ == "__main__":
    sys.exit(main())
