"""The group of workers a collective operator runs in (DIST.LOCAL.1-2): the reference's simulation
of a mesh's workers, one thread per worker, exchanging values at collectives through a barrier.

:class:`WorkerGroup` is created by the local-view evaluator (``relax_ref.interp.workers``) above this
layer; the ``ccl`` operators read the calling thread's membership with :func:`current`. Outside a
group a program runs as the lone worker of a group of one (DIST.LOCAL.2). Exchanges are deterministic:
every worker receives the values of all workers in rank order, whatever the threads' timing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, List, Optional

from ..errors import OpRuntimeError


class WorkerGroup:
    """``size`` workers exchanging values; ``timeout`` seconds bound a wait at a collective."""

    def __init__(self, size: int, timeout: float = 300.0) -> None:
        if size < 1:
            raise ValueError("a worker group has at least one worker")
        self.size = size
        self.timeout = timeout
        self._slots: List[Any] = [None] * size
        self._barrier = threading.Barrier(size, timeout=timeout)

    def abort(self) -> None:
        """Release the workers waiting at a collective (a worker failed)."""
        self._barrier.abort()

    def exchange(self, rank: int, value: Any) -> List[Any]:
        """Every worker's ``value``, in rank order (all workers call it with their own)."""
        if self.size == 1:
            return [value]
        try:
            self._barrier.wait()          # the previous exchange's readers are done
            self._slots[rank] = value
            self._barrier.wait()          # every value is in
            out = list(self._slots)
            self._barrier.wait()          # everyone has read
        except threading.BrokenBarrierError:
            raise OpRuntimeError("a collective was abandoned: another worker failed or did not reach it "
                                 "(DIST.LOCAL.2)") from None
        return out


@dataclass(frozen=True)
class Membership:
    group: WorkerGroup
    rank: int
    #: the local view (DIST.LOCAL.1): DTensor values are this worker's shards
    local: bool = False
    #: the mesh coordinates of this worker
    coords: tuple = ()

    @property
    def size(self) -> int:
        return self.group.size

    def exchange(self, value: Any) -> List[Any]:
        return self.group.exchange(self.rank, value)


_LOCAL = threading.local()
_LONE = Membership(WorkerGroup(1), 0)


def current() -> Membership:
    """The calling thread's worker group and rank (a group of one outside any group)."""
    m: Optional[Membership] = getattr(_LOCAL, "membership", None)
    return m if m is not None else _LONE


def join(group: WorkerGroup, rank: int, coords: tuple = ()) -> None:
    """Make the calling thread worker ``rank`` (at mesh ``coords``) of ``group``, in the local view."""
    _LOCAL.membership = Membership(group, rank, True, tuple(coords))


def leave() -> None:
    _LOCAL.membership = None


__all__ = ["WorkerGroup", "Membership", "current", "join", "leave"]
