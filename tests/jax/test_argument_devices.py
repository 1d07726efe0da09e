"""JAX arrays on another device than the executable's are copied to it, as NumPy arguments are
transferred (JAX refused them on the compiled path): ``argument_devices_script.py`` in a fresh process
with two host CPU devices (the device count is fixed when JAX starts)."""

from pathlib import Path

from host_devices import run_with_host_devices


def test_arrays_on_another_device_are_moved_to_the_executables():
    out = run_with_host_devices(Path(__file__).with_name("argument_devices_script.py"), 2)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == ["ok", "exact", "ok", "padded", "ok", "kv"], out.stdout
