import pytest

from mobifrag.tables.scan import ScanError, hole_kib, linear_fit


def test_linear_fit_recovers_a_line():
    xs = [1, 10, 100, 1000]
    slope, intercept, r2 = linear_fit(xs, [0.17 * x + 990 for x in xs])
    assert slope == pytest.approx(0.17) and intercept == pytest.approx(990) and r2 == 1


def test_noisy_points_lower_r2():
    _, _, r2 = linear_fit([1, 2, 3, 4], [1, 4, 2, 3])
    assert r2 < 0.5


def test_fit_needs_two_dof_values():
    with pytest.raises(ScanError, match="two different DoF"):
        linear_fit([5, 5], [1, 2])


def test_hole_size_from_trace_name():
    assert hole_kib("holes-000004k") == 4
    assert hole_kib("holes-001024k") == 1024
    assert hole_kib("pristine") == "NA"
