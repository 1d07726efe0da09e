"""The operator registry loads its operator modules once and completely, even when several threads
ask for an operator at the same time (the conformance runner's ``-j`` workers parse cases in threads)."""

import subprocess
import sys
import textwrap


def test_concurrent_first_lookups_see_the_complete_registry():
    script = textwrap.dedent('''
        import threading
        from relax_ref.ops import registry

        names = ["R.call_tir", "R.add", "R.nn.softmax", "R.call_tir_inplace", "R.matmul", "R.take"]
        barrier = threading.Barrier(8)
        missing = []

        def worker():
            barrier.wait()
            for n in names:
                if registry.lookup_script(n) is None:
                    missing.append(n)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("MISSING", sorted(set(missing)))
    ''')
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "MISSING []" in out.stdout, out.stdout
