"""The counters of an executable (:class:`Stats`): compilations, cache hits, host calls, padding."""

from dataclasses import dataclass


@dataclass
class Stats:
    """Counters of an :class:`Executable` (all functions together).

    ``compiles``: XLA compilations of Relax functions; ``cache_hits``: calls that reused one;
    ``fallbacks``: functions switched to exact-shape compilation because an operation was not exact
    under padding; ``host_calls``: calls evaluated in host mode; ``error_reruns``: compiled calls
    whose error code was set, or whose checks made before the call failed (``host_checks``), and that
    were run in host mode (a paged cache's forward that stored a value that is not finite among them,
    ``paged_kv_cache.recompute_on_host``); ``kernel_compiles``: PrimFunc kernels
    compiled for host mode; ``specializations``: exact-shape compilations of a shape that recurred
    ``specialize_after`` times in a bucket (counted in ``compiles`` too); ``host_pads``: arguments
    padded to their bucket through host memory; ``reused_pads``: arguments passed as the padded
    buffer they were cut from (``reuse_padded``); ``grown_before_compile``: compilations abandoned
    after their trace because a KV cache had to grow first (the call compiles at the new capacity
    only)."""

    compiles: int = 0
    cache_hits: int = 0
    fallbacks: int = 0
    host_calls: int = 0
    error_reruns: int = 0
    kernel_compiles: int = 0
    specializations: int = 0
    host_pads: int = 0
    reused_pads: int = 0
    grown_before_compile: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


__all__ = ["Stats"]
