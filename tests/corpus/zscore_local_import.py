"""Z-score normalisation of an array of any rank (scipy.stats.zscore with ddof); numpy is imported again inside the function, as some scripts do."""
import numpy as np
import numpy.typing as npt

CATEGORY = "mixed"


def zscore(x: npt.NDArray[np.float64], ddof: int = 0) -> npt.NDArray[np.float64]:
    import numpy as np

    n = x.size
    if n - ddof <= 0:
        return np.zeros_like(x)
    mean = np.sum(x) / n
    var = np.sum((x - mean) ** 2) / (n - ddof)
    if var == 0.0:
        return np.zeros_like(x)
    return (x - mean) / np.sqrt(var)


ENTRY = "zscore"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),
        (np.array([5.0]),),
        (np.array([5.0]), 1),
        (np.full((3, 4), 2.0),),
        (rng.standard_normal(7), 1),
        (rng.standard_normal((13, 11)),),
        (rng.exponential(3.0, (5, 7, 11)), 1),
        (rng.standard_normal((0, 4)),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((1000, 1000)),)
