"""Adapter selection for ``--impl``, and where the adapter runs.

=====================  =================================================================================
``--impl``             adapter
=====================  =================================================================================
``ref``                relax_ref, the reference interpreter
``tvm``                Apache TVM 0.25 (``relax.build`` + the VM)
``jax``                relax_jax, the JAX/XLA executor
``MODULE:CLASS``       any :class:`~relax_conformance.adapter.Adapter` subclass
``cmd:COMMAND``        an implementation speaking the subprocess protocol (FORMAT.md)
=====================  =================================================================================

A Python adapter (the first four) runs in a worker process by default (``python -m
relax_conformance.worker IMPL``, one per worker thread, kept for the whole run): a crash of the
implementation (a signal, an abort inside native code) or a hang past ``--timeout`` fails only the
current case, and the next case gets a fresh worker. ``--isolate`` starts a fresh worker for every
case; ``--in-process`` runs the adapter in the runner's own process (fastest to debug, but a crash
ends the run). A ``cmd:`` program runs the same way as a worker.
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
MODES = ("worker", "isolate", "in-process")


class ImplSpecError(ValueError):
    """``--impl`` names no adapter."""


def make_inprocess(impl: str) -> Callable[[], Adapter]:
    """A factory for an adapter living in this process."""
    target = BUILTIN.get(impl, impl)
    module_name, sep, cls_name = target.partition(":")
    if not sep or not module_name or not cls_name:
        raise ImplSpecError(f"--impl {impl!r}: expected ref, jax, tvm, MODULE:CLASS or cmd:COMMAND")
    if impl not in BUILTIN and os.getcwd() not in sys.path and "" not in sys.path:
        # as ``python -m`` does: a MODULE:CLASS in the working directory loads without PYTHONPATH=.
        # (appended, so that it never shadows an installed module)
        sys.path.append(os.getcwd())
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


def _check_spec(impl: str) -> None:
    if impl not in BUILTIN:
        module_name, sep, cls_name = impl.partition(":")
        if not sep or not module_name or not cls_name:
            raise ImplSpecError(f"--impl {impl!r}: expected ref, jax, tvm, MODULE:CLASS or cmd:COMMAND")


def make_adapter_factory(impl: str, *, mode: str = "worker", timeout: float = 120.0,
                         isolate: bool = False) -> Callable[[], Adapter]:
    """A zero-argument factory building the adapter ``--impl`` names (one per worker thread).

    ``mode`` is ``"worker"`` (a long-lived worker process, restarted after a crash), ``"isolate"`` (a
    fresh process per case; ``isolate=True`` says the same) or ``"in-process"``."""
    from .subprocess import SubprocessAdapter

    if isolate:
        mode = "isolate"
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    fresh = mode == "isolate"
    if impl.startswith("cmd:"):
        argv = shlex.split(impl[4:])
        if not argv:
            raise ImplSpecError("--impl cmd: needs a command")
        return lambda: SubprocessAdapter(argv, timeout=timeout, label=impl[4:], fresh_per_case=fresh)
    _check_spec(impl)
    if mode == "in-process":
        return make_inprocess(impl)
    argv = [sys.executable, "-m", "relax_conformance.worker", impl]
    return lambda: SubprocessAdapter(argv, timeout=timeout, env=_worker_env(), label=impl, fresh_per_case=fresh)


__all__ = ["make_adapter_factory", "make_inprocess", "ImplSpecError", "BUILTIN", "MODES"]
