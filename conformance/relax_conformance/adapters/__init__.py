"""Adapter selection for ``--impl``.

=====================  =================================================================================
``--impl``             adapter
=====================  =================================================================================
``ref``                relax_ref in this process (``--isolate`` runs it in a worker process instead)
``tvm``                Apache TVM 0.25, always in a worker process (TVM can crash on some inputs)
``jax``                relax_jax, the JAX/XLA executor, in this process (``--isolate``: a worker)
``MODULE:CLASS``       any :class:`~relax_conformance.adapter.Adapter` subclass, in this process
                       (``--isolate``: in a worker process)
``cmd:COMMAND``        an implementation speaking the subprocess protocol (FORMAT.md)
=====================  =================================================================================
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from pathlib import Path
from typing import Callable

from ..adapter import Adapter

BUILTIN = {
    "ref": "relax_conformance.adapters.ref:RefAdapter",
    "tvm": "relax_conformance.adapters.tvm:TvmAdapter",
    "jax": "relax_conformance.adapters.jax:JaxAdapter",
}
ALWAYS_ISOLATED = ("tvm",)


class ImplSpecError(ValueError):
    """``--impl`` names no adapter."""


def make_inprocess(impl: str) -> Callable[[], Adapter]:
    """A factory for an adapter living in this process."""
    target = BUILTIN.get(impl, impl)
    module_name, sep, cls_name = target.partition(":")
    if not sep or not module_name or not cls_name:
        raise ImplSpecError(f"--impl {impl!r}: expected ref, tvm, MODULE:CLASS or cmd:COMMAND")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ImplSpecError(f"--impl {impl!r}: cannot import {module_name} ({err})") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ImplSpecError(f"--impl {impl!r}: {module_name} has no attribute {cls_name}")
    return cls


def _worker_env() -> dict:
    """The environment of a worker process: make sure it can import this package."""
    env = dict(os.environ)
    pkg_parent = str(Path(__file__).resolve().parent.parent.parent)
    # the package itself, what the caller put on PYTHONPATH, and the working directory (an in-process
    # MODULE:CLASS adapter resolves against it too)
    paths = [pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [os.getcwd()]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def make_adapter_factory(impl: str, *, isolate: bool = False, timeout: float = 120.0) -> Callable[[], Adapter]:
    """A zero-argument factory building the adapter ``--impl`` names (one per worker thread)."""
    from .subprocess import SubprocessAdapter

    if impl.startswith("cmd:"):
        argv = shlex.split(impl[4:])
        if not argv:
            raise ImplSpecError("--impl cmd: needs a command")
        return lambda: SubprocessAdapter(argv, timeout=timeout, label=impl[4:])
    if isolate or impl in ALWAYS_ISOLATED:
        if impl not in BUILTIN and ":" not in impl:
            raise ImplSpecError(f"--impl {impl!r}: expected ref, tvm, MODULE:CLASS or cmd:COMMAND")
        argv = [sys.executable, "-m", "relax_conformance.worker", impl]
        return lambda: SubprocessAdapter(argv, timeout=timeout, env=_worker_env(), label=impl)
    return make_inprocess(impl)


__all__ = ["make_adapter_factory", "make_inprocess", "ImplSpecError", "BUILTIN"]
