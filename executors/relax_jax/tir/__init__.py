"""TensorIR to JAX: :mod:`.kernel` (statements), :mod:`.nest` (vectorized loop nests),
:mod:`.analysis` (nest analysis, bounds proofs), :mod:`.call` (binding and ``call_tir``)."""
