"""Frontends: ways to produce Relax programs from higher-level model descriptions.

:mod:`relax_ref.frontend.nn` is a small module library (Linear, Embedding, RMSNorm, rotary
embedding, grouped-query attention with a KV cache, a SiLU-gated MLP) that emits Relax through
:class:`relax_ref.builder.BlockBuilder`.
"""
