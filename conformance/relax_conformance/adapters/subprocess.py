"""Client side of the subprocess protocol: an adapter that talks to a command over JSON lines.

Used for ``--impl cmd:"..."`` (an implementation in any language) and, with the worker of
:mod:`relax_conformance.worker`, to isolate in-process adapters (``--impl tvm`` always runs this way):
if the process dies, the current case gets the error kind ``crash`` (with the signal and the tail of
the process's stderr), and the next case starts a fresh process. Every wait has a deadline: the
start-up handshake and each request get ``timeout`` seconds, after which the process is killed and
the case gets the kind ``timeout``. A process that closes its stdout is useless and is killed at once.
The command runs in a process group of its own, and killing it kills the whole group, so that a
wrapper script does not leave its children running.
"""

from __future__ import annotations

import errno
import os
import re
import select
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from ..adapter import Adapter, AdapterError, LoadError, RunError, Unsupported
from ..npz import read_npz, write_npz
from ..protocol import PROTOCOL_VERSION, ProtocolError, dumps, field, loads
from ..values import ValueSpecError, decode, encode
from .. import vocab

#: The longest reply line accepted (a process that sends more is broken).
_MAX_LINE_BYTES = 64 << 20

#: Seconds a process that closed its output is given to exit on its own (to report its status).
_EXIT_GRACE = 1.0


class _Died(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _signal_name(rc: int) -> str:
    if rc < 0:
        try:
            return f"signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"signal {-rc}"
    return f"exit status {rc}"


class SubprocessAdapter(Adapter):
    """Runs an implementation as a child process speaking protocol version 1."""

    def __init__(self, argv: list[str], *, timeout: float = 120.0, env: Optional[dict] = None,
                 label: Optional[str] = None, fresh_per_case: bool = False) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.argv = list(argv)
        self.timeout = timeout
        self.fresh_per_case = fresh_per_case
        self._loads = 0
        self.env = env
        self.name = label or " ".join(argv)
        self.unsupported_features = frozenset()
        self._proc: Optional[subprocess.Popen] = None
        self._buf = b""
        self._generation = 0
        self._tmp = tempfile.TemporaryDirectory(prefix="relax-conformance-")
        self._stderr_path = Path(self._tmp.name) / "stderr.txt"
        self._stderr = None
        self._seq = 0
        try:
            self._start()
        except _Died as d:
            self._tmp.cleanup()
            raise ProtocolError(f"cannot start {self.name!r}: {d.message}") from None
        except BaseException:
            self._tmp.cleanup()
            raise

    # -- process management -------------------------------------------------------------------------

    def _start(self) -> None:
        self._stderr = open(self._stderr_path, "wb")
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, env=self.env, start_new_session=True)
        except (OSError, ValueError) as err:
            self._stderr.close()
            self._stderr = None
            raise ProtocolError(f"cannot start {self.argv!r}: {err}") from None
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._buf = b""
        self._loads = 0
        self._generation += 1
        try:
            self._handshake()
        except BaseException:
            self._stop()
            raise

    def _handshake(self) -> None:
        reply = self._exchange({"op": "hello", "protocol": PROTOCOL_VERSION}, self.timeout)
        if not reply.get("ok"):
            raise ProtocolError(f"hello refused: {reply}")
        if reply.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            raise ProtocolError(f"implementation speaks protocol {reply.get('protocol')!r}, "
                                f"the runner speaks {PROTOCOL_VERSION}")
        name = reply.get("name")
        if isinstance(name, str) and name:
            self.name = name
        version = reply.get("version")
        if isinstance(version, str) and version:
            self.version = version
        feats = reply.get("unsupported_features", [])
        if not isinstance(feats, list) or not all(isinstance(f, str) for f in feats):
            raise ProtocolError("hello: 'unsupported_features' must be a list of strings")
        self.unsupported_features = frozenset(feats)

    def _stderr_tail(self, n: int = 12) -> str:
        try:
            with open(self._stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - (64 << 10)))
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        # native backtraces are long and say little; keep the messages around them
        lines = [ln for ln in lines if ln.strip() and not re.match(r'\s*File "', ln)]
        return "\n".join(lines[-n:])

    def _kill(self) -> None:
        """Kill the process and everything in its process group, and reap it."""
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # the group the process leads (start_new_session)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.poll() is None:
            try:
                proc.kill()
            except ProcessLookupError:
                pass
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _died(self, kind: str, what: str, grace: float = 0.0) -> _Died:
        """Kill the process (after ``grace`` seconds to exit on its own) and describe its end."""
        if self._proc is not None and grace > 0:
            try:
                self._proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        rc = self._proc.poll() if self._proc is not None else None
        self._kill()
        status = _signal_name(rc) if rc is not None else "killed by the runner"
        tail = self._stderr_tail()
        msg = f"implementation process {what} ({status})"
        if tail:
            msg += "; stderr tail:\n" + tail
        self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        return _Died(kind, msg)

    def _ensure(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self._start()

    def _readline(self, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._died("timeout", "did not answer in time")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died("crash", "closed its output without answering",
                                 grace=min(_EXIT_GRACE, max(0.0, deadline - time.monotonic())))
            self._buf += chunk
            if len(self._buf) > _MAX_LINE_BYTES:
                raise self._died("crash", f"sent a line longer than {_MAX_LINE_BYTES} bytes")
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _write(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the process's stdin (non-blocking) before ``deadline``."""
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._died("timeout", "did not read its input in time")
            _, ready, _ = select.select([], [fd], [], remaining)
            if not ready:
                continue
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                continue
            except OSError as err:
                if err.errno in (errno.EPIPE, errno.EBADF):
                    raise self._died("crash", "closed its input", grace=_EXIT_GRACE) from None
                raise
            view = view[n:]

    def _exchange(self, msg: dict, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        self._write(dumps(msg), deadline)
        line = self._readline(deadline)
        try:
            if self._buf.strip():
                raise ProtocolError(f"more than one line in answer to {msg.get('op')!r}: "
                                    f"{self._buf[:200].decode('utf-8', 'replace')!r}")
            return loads(line)
        except ProtocolError:
            self._stop()   # the channel is out of step: never read another reply from this process
            raise

    def _request(self, msg: dict) -> dict:
        self._ensure()
        return self._exchange(msg, self.timeout)

    # -- replies ------------------------------------------------------------------------------------

    @staticmethod
    def _raise_for(reply: dict, err_cls: type[AdapterError], where: str) -> None:
        if reply.get("ok") is True:
            return
        if reply.get("ok") is not False:
            raise ProtocolError(f"{where}: reply without a boolean 'ok': {reply}")
        if "unsupported" in reply:
            u = reply["unsupported"]
            if not isinstance(u, dict) or not isinstance(u.get("feature"), str):
                raise ProtocolError(f"{where}: malformed 'unsupported': {u!r}")
            raise Unsupported(u["feature"], str(u.get("message", "")))
        if "internal" in reply:
            raise ProtocolError(f"{where}: the implementation failed internally: {reply['internal']}")
        e = reply.get("error")
        if not isinstance(e, dict) or not isinstance(e.get("kind"), str):
            raise ProtocolError(f"{where}: malformed 'error': {e!r}")
        kind = e["kind"] if e["kind"] in vocab.ALL_REPORTABLE_KINDS else "unclassified"
        msg = str(e.get("message", ""))
        if kind != e["kind"]:
            msg = f"[reported kind {e['kind']!r} is not in the vocabulary] {msg}"
        site = e.get("site")
        if site is not None and site not in vocab.SITES:
            msg = f"[reported site {site!r} is not in the vocabulary] {msg}"
            site = None
        raise err_cls(kind, msg, site)

    # -- adapter protocol ---------------------------------------------------------------------------

    def load(self, text: str, case: Any) -> Any:
        if self.fresh_per_case and self._loads and self._proc is not None:
            self._stop()
        self._loads += 1
        self._seq += 1
        msg = {"op": "load", "case": getattr(case, "id", ""), "path": str(getattr(case, "path", "")),
               "text": text, "entry": getattr(case, "entry", "main"),
               "spelling": getattr(case, "spelling", "tvm"), "tags": list(getattr(case, "tags", ())),
               "requires": list(getattr(case, "requires", ()))}
        try:
            reply = self._request(msg)
        except _Died as d:
            raise LoadError(d.kind, d.message) from None
        self._raise_for(reply, LoadError, "load")
        handle = field(reply, "handle", (str, int), "load reply")
        return (self._generation, handle)

    def run(self, handle: Any, entry: str, args: list) -> Any:
        gen, remote = handle
        if gen != self._generation or self._proc is None:
            raise RunError("crash", "the implementation process was restarted after loading this module")
        self._seq += 1
        args_file = Path(self._tmp.name) / f"args{self._seq}.npz"
        out_file = Path(self._tmp.name) / f"out{self._seq}.npz"
        arrays: dict = {}
        specs = [encode(a, f"a{i}", arrays, inline_scalars=True) for i, a in enumerate(args)]
        write_npz(args_file, arrays)
        try:
            reply = self._request({"op": "run", "handle": remote, "entry": entry, "args": specs,
                                   "args_file": str(args_file), "out_file": str(out_file)})
        except _Died as d:
            raise RunError(d.kind, d.message) from None
        finally:
            args_file.unlink(missing_ok=True)
        try:
            self._raise_for(reply, RunError, "run")
            spec = reply.get("result")
            if not isinstance(spec, dict):
                raise ProtocolError(f"run reply without a 'result' value spec: {reply}")
            out_arrays = read_npz(out_file) if out_file.exists() else {}
            try:
                return decode(spec, out_arrays, "result")
            except ValueSpecError as err:
                raise ProtocolError(f"run reply: {err}") from None
        finally:
            out_file.unlink(missing_ok=True)

    def release(self, handle: Any) -> None:
        gen, remote = handle
        if gen != self._generation or self._proc is None or self._proc.poll() is not None:
            return
        try:
            reply = self._request({"op": "release", "handle": remote})
        except _Died:
            return
        if reply.get("ok") is not True:
            raise ProtocolError(f"release refused: {reply}")

    def _stop(self) -> None:
        """Ask the process to quit, wait a little, then kill its whole process group."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                try:
                    self._write(dumps({"op": "quit"}), time.monotonic() + min(self.timeout, 5.0))
                    assert proc.stdin is not None
                    proc.stdin.close()
                    proc.wait(timeout=min(self.timeout, 10.0))
                except _Died:
                    pass
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()   # whatever the process left behind in its group goes too
        self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def kill(self) -> None:
        """Kill the implementation's process group at once, e.g. when the run is interrupted (callable
        from another thread: a request in progress then ends as a crash)."""
        proc = self._proc
        if proc is None:
            return
        for send in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
            try:
                send()
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        self._stop()
        self._tmp.cleanup()


__all__ = ["SubprocessAdapter"]
