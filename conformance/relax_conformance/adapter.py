"""The adapter protocol: how the runner talks to an implementation.

An adapter is a small class::

    class MyAdapter(Adapter):
        name = "my-impl"
        version = "1.2.0"                    # optional: picks the divergences listed for release 1.2
        unsupported_features = frozenset({"classic-spelling"})   # optional

        def load(self, text: str, case: CaseSpec) -> Handle:
            ...   # parse + check + compile; raise LoadError(kind, message) on rejection

        def run(self, handle: Handle, entry: str, args: list) -> Any:
            ...   # call `entry`; raise RunError(kind, message) on a run-time error

        def release(self, handle) -> None: ...           # optional
        def close(self) -> None: ...                     # optional

Values are those of :mod:`relax_conformance.values` (numpy arrays, :class:`Shape`, :class:`Prim`,
tuples, ``str``, ``None``). ``kind`` comes from :mod:`relax_conformance.vocab`; an error the adapter
cannot map is reported with kind ``"unclassified"``. A run-time struct-info error also names its
``site`` (``param``, ``return``, ``match_cast``, ``call_result``, ``if_cond``, ``call_tir``) when the
implementation tells it; the condition ``match_cast_failed`` is judged from the site.

Raising :class:`Unsupported` (or listing the feature in ``unsupported_features``, matched against a
case's ``requires``) makes the case a ``skip``. Any other exception escaping ``load``/``run`` is an
adapter bug and gives the result ``error``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Optional

from . import vocab


class AdapterError(Exception):
    """A classified error reported by an implementation."""

    def __init__(self, kind: str, message: str = "", site: Optional[str] = None) -> None:
        if kind not in vocab.ALL_REPORTABLE_KINDS:
            raise ValueError(f"unknown error kind {kind!r}; use one of {list(vocab.ALL_REPORTABLE_KINDS)}")
        if site is not None and site not in vocab.SITES:
            raise ValueError(f"unknown error site {site!r}; use one of {list(vocab.SITES)}")
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message
        self.site = site

    @property
    def label(self) -> str:
        """``kind`` or ``kind@site``."""
        return f"{self.kind}@{self.site}" if self.site else self.kind


class LoadError(AdapterError):
    """The implementation rejected the module text (parse, struct-info or well-formedness error)."""


class RunError(AdapterError):
    """Evaluating the entry function failed with a run-time error."""


class Unsupported(Exception):
    """The implementation declares a feature unsupported; the case is skipped, never passed."""

    def __init__(self, feature: str, message: str = "") -> None:
        super().__init__(f"unsupported feature {feature!r}" + (f": {message}" if message else ""))
        self.feature = feature
        self.message = message


class Adapter(ABC):
    """Base class of adapters (see the module docstring for the protocol)."""

    name = "adapter"
    #: the implementation's version, if it has one: known divergences may be listed per release
    #: (:mod:`relax_conformance.divergences`)
    version: Optional[str] = None
    unsupported_features: frozenset = frozenset()

    @abstractmethod
    def load(self, text: str, case: Any) -> Any:
        raise NotImplementedError

    @abstractmethod
    def run(self, handle: Any, entry: str, args: list) -> Any:
        raise NotImplementedError

    def release(self, handle: Any) -> None:
        """Free what ``load`` built (optional)."""

    def close(self) -> None:
        """Free the adapter's resources at the end of a run (optional)."""


__all__ = ["AdapterError", "LoadError", "RunError", "Unsupported", "Adapter"]
