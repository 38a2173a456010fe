"""The empirical-Bayes shrink factor (selector/shrinkage.py) against the truth of simulated
random-effects data: keys of 1-6 rows, offsets of variance tau^2, noise of variance sigma^2."""
from __future__ import annotations

import numpy as np
import pytest

from everypath.selector.shrinkage import MAX_PAIRS, shrink_factor

SIZES = [1] * 13 + [2] * 12 + [3] * 8 + [4] * 2 + [5, 6]  # the test fleet's numpy.sum keys


def draw(rng: np.random.Generator, sizes: list[int], sigma2: float, tau2: float) -> tuple[np.ndarray, np.ndarray]:
    key = np.repeat(np.arange(len(sizes)), sizes)
    u = rng.standard_normal(len(sizes)) * np.sqrt(tau2)
    return key.astype(str), u[key] + rng.standard_normal(len(key)) * np.sqrt(sigma2)


@pytest.mark.parametrize(("sigma2", "tau2"), [(0.75, 0.05), (0.8, 0.1), (1.0, 0.2), (0.75, 0.2)])
def test_the_median_factor_is_near_the_truth(sigma2: float, tau2: float) -> None:
    rng = np.random.default_rng(0)
    got = [shrink_factor(*draw(rng, SIZES, sigma2, tau2), cap=1e9) for _ in range(300)]
    # the median of ratio estimates on 37 keys: within 40 % of sigma^2 / tau^2 (the older
    # median-centred estimator gave 1.5-2.3 for truths of 3.75-15)
    assert np.median(got) == pytest.approx(sigma2 / tau2, rel=0.4)


def test_more_noise_gives_a_larger_factor_and_the_cap_holds() -> None:
    rng = np.random.default_rng(1)
    key, base = draw(rng, SIZES * 4, 0.05, 0.2)
    noisy = base + rng.standard_normal(len(base))  # the same offsets and keys, +1 noise variance
    lo, hi = shrink_factor(key, base, cap=100.0), shrink_factor(key, noisy, cap=100.0)
    assert lo is not None and hi is not None and 1.0 <= lo < hi / 2 <= 50.0


def test_outliers_barely_move_it() -> None:
    rng = np.random.default_rng(2)
    key, r = draw(rng, SIZES * 8, 0.5, 0.25)
    bad = r.copy()
    bad[rng.choice(len(r), len(r) // 100, replace=False)] += 40.0  # 1 % outliers
    a, b = shrink_factor(key, r, cap=1e9), shrink_factor(key, bad, cap=1e9)
    assert a == pytest.approx(2.0, rel=0.35) and b == pytest.approx(a, rel=0.2)


def test_sampled_pairs_agree_with_every_pair() -> None:
    rng = np.random.default_rng(3)
    key, r = draw(rng, [8] * 400, 0.5, 0.25)  # 11 200 within pairs: exact; 5 M between: sampled
    exact = shrink_factor(key, r, cap=1e9)
    big_key, big_r = draw(rng, [60] * 400, 0.5, 0.25)  # 708 000 within pairs: sampled
    assert 400 * 60 * 59 // 2 > MAX_PAIRS
    sampled = shrink_factor(big_key, big_r, cap=1e9)
    assert exact == pytest.approx(2.0, rel=0.25) and sampled == pytest.approx(2.0, rel=0.25)
    assert shrink_factor(big_key, big_r, cap=1e9, seed=0) == sampled  # seeded: deterministic


def test_too_few_pairs_of_one_key_give_no_factor() -> None:
    key = np.array(["a", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"])  # 1 within pair
    assert shrink_factor(key, np.arange(12.0), cap=100.0) is None
    assert shrink_factor(np.array([], dtype=str), np.zeros(0), cap=100.0) is None
