"""Support pieces of the toolkit: result comparison, the choice-sequence shrinker, the campaign
driver on relax-ref's own passes."""

import json

import numpy as np
import pytest

from relax_ref.values import ShapeValue
from relax_ref.testing.campaign import draw_sequence, main as campaign_main
from relax_ref.testing.compare import compare
from relax_ref.testing.shrink import shrink
from relax_ref.testing.source import RandomSource, ReplaySource


def test_compare_tolerances_and_structure():
    a = np.array([1.0, 2.0, np.nan], "float32")
    assert compare(a, a.copy()) is None
    assert compare(a, a + np.float32(1e-6)) is None
    assert "differ" in compare(a, a + np.float32(1e-2))
    assert "dtype" in compare(a, a.astype("float64"))
    assert "shape" in compare(a, a[:2])
    h = np.array([1.0, 2.0], "float16")
    assert compare(h, h + np.float16(1e-3)) is None
    i = np.array([1, 2], "int32")
    assert "differ" in compare(i, i + 1)
    assert compare((i, ShapeValue((2, 3))), (i.copy(), ShapeValue((2, 3)))) is None
    assert "result[1]" in compare((i, ShapeValue((2, 3))), (i, ShapeValue((2, 4))))
    assert compare(np.array([np.inf], "float32"), np.array([-np.inf], "float32")) is not None
    assert compare(True, False) is not None
    assert compare(1.0, 1.0 + 1e-9) is None


def test_shrinker_finds_the_minimal_list():
    # fails when the list contains a 7 somewhere after a 3
    def fails(c):
        if 3 in c and 7 in c[c.index(3):]:
            return list(c)
        return None

    start = [5, 1, 3, 9, 9, 2, 7, 4, 4, 8]
    out = shrink(start, fails, seconds=10)
    assert out == [3, 7]


def test_sequences_shrink_to_one_pass():
    assert draw_sequence(ReplaySource([]), ["A", "B"], 4) == ["A"]
    seqs = {tuple(draw_sequence(RandomSource(s), ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "X"], 4))
            for s in range(40)}
    assert any(s[:3] == ("LegalizeOps", "AnnotateTIROpPattern", "FuseOps") for s in seqs)
    assert all(1 <= len(s) <= 4 for s in seqs)


def test_campaign_on_reference_passes(tmp_path, capsys):
    rc = campaign_main(["--minutes", "5", "--max-programs", "6", "--target", "ref", "--passes", "LegalizeOps",
                        "--out", str(tmp_path)])
    assert rc == 0
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["programs"] == 6 and rep["invalid"] == 0
    assert rep["per_pass"]["LegalizeOps"]["ok"] >= 6
    assert "| LegalizeOps |" in (tmp_path / "report.md").read_text()


def test_campaign_rejects_unknown_reference_pass(tmp_path):
    from relax_ref.errors import RelaxError

    with pytest.raises(RelaxError):
        campaign_main(["--minutes", "1", "--target", "ref", "--passes", "NoSuchPass", "--out", str(tmp_path)])
