"""Feature hashing ('hashing trick', sklearn FeatureHasher) of int64 ids into int32 buckets with signs, using floor // and % on negative numbers and & | ^ ~ bit operations, with small constants so int64 never overflows."""
import numpy as np

CATEGORY = "array"

IdVec = np.ndarray[tuple[int], np.dtype[np.int64]]
PRIME = 1_000_003


def hash_features(ids: IdVec, salt: int, n_buckets: int) -> tuple[np.ndarray[tuple[int], np.dtype[np.int32]], IdVec, IdVec]:
    h = (ids * 31 + salt) % PRIME  # floor modulo: non-negative even for negative ids
    h = h ^ (h // 64)
    h = (h | 1) & ~(h & 0x100)
    sign = np.where((h & 2) == 0, 1, -1)
    bucket = (h % n_buckets).astype(np.int32)
    block = ids // 7  # floor division of negative ids rounds towards -inf
    return bucket, sign, block


ENTRY = "hash_features"


def cases(rng: np.random.Generator) -> list[tuple]:
    def ids(n):
        return rng.integers(-10**9, 10**9, size=n).astype(np.int64)

    return [
        (ids(0), 0, 16),
        (ids(1), 7, 1),
        (np.array([-15, -14, -8, -7, -1, 0, 1, 6, 7], dtype=np.int64), 3, 5),
        (ids(101), 12345, 97),
        (ids(9973), -42, 1024),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(-10**9, 10**9, size=1_000_000).astype(np.int64), 17, 4096)
