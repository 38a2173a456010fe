"""Composite Simpson's rule on equally spaced samples, summing odd and even interior points with stepped ranges range(1, n - 1, 2) / range(2, n - 1, 2) (scipy.integrate.simpson for odd n)."""
import numpy as np

CATEGORY = "loop"


def simpson(y: np.ndarray[tuple[int], np.dtype[np.float64]], dx: float = 1.0) -> float:
    n = y.shape[0]
    if n % 2 == 0:
        raise ValueError("simpson: need an odd number of samples")
    if n == 1:
        return 0.0
    odd = 0.0
    for i in range(1, n - 1, 2):
        odd += y[i]
    even = 0.0
    for i in range(2, n - 1, 2):
        even += y[i]
    return float(dx / 3.0 * (y[0] + 4.0 * odd + 2.0 * even + y[n - 1]))


ENTRY = "simpson"


def cases(rng: np.random.Generator) -> list[tuple]:
    x = np.linspace(0.0, np.pi, 101)
    return [
        (np.zeros(0),),  # even (zero) number of samples: raises ValueError
        (np.array([3.0]),),
        (np.array([1.0, 4.0, 9.0]), 0.5),
        (rng.standard_normal(7),),
        (np.sin(x), float(x[1] - x[0])),
        (rng.standard_normal(9973), 1e-3),
        (rng.standard_normal(10),),  # even number of samples: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(400_001), 1e-3)
