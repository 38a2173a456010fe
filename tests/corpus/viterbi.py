"""Viterbi decoding of a hidden Markov model in log space: a vectorised max over previous states per time step, then backtracking with a negative-step loop (speech recognition, POS tagging)."""
import numpy as np

CATEGORY = "mixed"

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def viterbi(log_start: Vec, log_trans: Mat, log_emit: Mat,
            obs: np.ndarray[tuple[int], np.dtype[np.int64]]) -> tuple[np.ndarray[tuple[int], np.dtype[np.int64]], float]:
    t_len = obs.shape[0]
    n_states = log_start.shape[0]
    if t_len == 0:
        return np.zeros(0, dtype=np.int64), 0.0
    delta = log_start + log_emit[:, obs[0]]
    back = np.zeros((t_len, n_states), dtype=np.int64)
    for t in range(1, t_len):
        scores = delta[:, None] + log_trans  # scores[i, j]: best path ending in i, then i -> j
        back[t] = np.argmax(scores, axis=0)
        delta = np.max(scores, axis=0) + log_emit[:, obs[t]]
    path = np.zeros(t_len, dtype=np.int64)
    path[-1] = np.argmax(delta)
    for t in range(t_len - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, float(np.max(delta))


ENTRY = "viterbi"


def _hmm(rng, s, k, t):
    def normalise(m):
        return m / m.sum(axis=-1, keepdims=True)

    start = normalise(rng.random(s) + 0.1)
    trans = normalise(rng.random((s, s)) + 0.1)
    emit = normalise(rng.random((s, k)) + 0.1)
    return np.log(start), np.log(trans), np.log(emit), rng.integers(0, k, size=t).astype(np.int64)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [_hmm(rng, 3, 4, 0), _hmm(rng, 1, 1, 1), _hmm(rng, 2, 3, 1), _hmm(rng, 3, 5, 7),
            _hmm(rng, 5, 7, 101), _hmm(rng, 13, 11, 500)]


def bench_args(rng: np.random.Generator) -> tuple:
    return _hmm(rng, 16, 20, 8_000)
