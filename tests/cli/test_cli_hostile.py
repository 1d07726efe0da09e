"""``relax-ref`` on broken and hostile files: every error is a message and an exit status, never a
traceback, and nothing the file declares is allocated before it is checked.

The commands run in a child process limited to 1 GiB of address space, so that a reader that
decompresses a bomb or allocates what a header declares fails the test instead of the machine.
"""

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relax_ref.npz import NpzError, read_npz
from relax_ref.testing.hostile_files import write_cli_files

ROOT = Path(__file__).resolve().parents[2]

MEMORY_LIMIT = 1 << 30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def relax_ref(*args, cwd):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "relax_ref.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, preexec_fn=_limit_memory, timeout=120)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    write_cli_files(d)
    ok = dict(x=np.ones((2, 4), "float32"), s=np.array([2, 3]), k=np.array(5, "int32"))
    np.savez(d / "extra.npz", **dict(ok, typo=np.array(1)))
    np.savez(d / "strings.npz", **dict(ok, x=np.array(["a", "b"])))
    os.mkfifo(d / "fifo")            # opening it for reading would wait for a writer forever
    return d


def _clean(proc, status=1):
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_good_inputs_run(files):
    proc = relax_ref("run", "good.py", "--inputs", "ok.npz", cwd=files)
    assert proc.returncode == 0, proc.stderr
    assert "tensor (2, 4) float32" in proc.stdout


@pytest.mark.parametrize("inputs, message", [
    ("missing.npz", "missing.npz: no such file"),
    ("empty.npz", "empty file, not an npz archive"),
    ("pickled.npz", "a pickle, not an npz archive"),
    ("single.npy", "a single .npy array, not an npz archive"),
    ("truncated.npz", "not an npz archive"),
    ("object.npz", "object arrays are refused"),
    ("strings.npz", "dtype <U1 is not a tensor element type"),
    ("bomb.npz", "expand to 3.0 GiB, more than the limit of 1.0 GiB"),
    ("big_prim.npz", "1099511627776 does not fit in int32"),
    ("big_dim.npz", "shape dimension 18446744073709551615 is outside the int64 range"),
    ("extra.npz", "entries ['typo'] name no parameter"),
    ("fifo", "fifo: not a regular file"),
])
def test_bad_inputs_file_is_one_line(files, inputs, message):
    line = _clean(relax_ref("run", "good.py", "--inputs", inputs, cwd=files))
    assert message in line


def test_input_limit_is_configurable(files):
    line = _clean(relax_ref("run", "good.py", "--inputs", "ok.npz", "--max-input-bytes", "16", cwd=files))
    assert "more than the limit of 16 bytes" in line
    proc = relax_ref("run", "good.py", "--inputs", "ok.npz", "--max-input-bytes", "lots", cwd=files)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["check", "print", "run", "viz"])
def test_bad_source_files(files, command):
    assert "latin1.py: not UTF-8 text (byte 0xe9 at line 10" in _clean(relax_ref(command, "latin1.py", cwd=files))
    assert "nothing.py: no such file" in _clean(relax_ref(command, "nothing.py", cwd=files))
    assert "is a directory" in _clean(relax_ref(command, str(files), cwd=files))
    assert "fifo: not a regular file" in _clean(relax_ref(command, "fifo", cwd=files))


def test_unknown_entry_and_unwritable_output(files):
    assert "no function named 'nope' (it has main)" in _clean(
        relax_ref("run", "good.py", "--inputs", "ok.npz", "--entry", "nope", cwd=files))
    assert "cannot write" in _clean(
        relax_ref("run", "good.py", "--inputs", "ok.npz", "--out", "no/such/dir/out.npz", cwd=files))


def test_read_npz_refuses_before_allocating(tmp_path):
    # a header that declares far more data than the member holds
    import io
    import zipfile

    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 12,)})
    member.write(bytes(64))
    with zipfile.ZipFile(tmp_path / "liar.npz", "w") as zf:
        zf.writestr("x.npy", member.getvalue())
    with pytest.raises(NpzError, match="declares shape"):
        read_npz(tmp_path / "liar.npz")
    # arrays come back as numpy.load gives them: values, order, writable, native byte order
    arrays = dict(c=np.arange(6).reshape(2, 3), f=np.asfortranarray(np.arange(6.0).reshape(2, 3)),
                  b=np.array([1, 2], ">i4"), e=np.zeros((0, 3), "float16"), z=np.array(True))
    np.savez_compressed(tmp_path / "ok.npz", **arrays)
    got = read_npz(tmp_path / "ok.npz")
    assert sorted(got) == sorted(arrays)
    for k, v in arrays.items():
        np.testing.assert_array_equal(got[k], v)
        assert got[k].dtype == v.dtype.newbyteorder("=") and got[k].shape == v.shape and got[k].flags.writeable
    assert got["f"].flags.f_contiguous
