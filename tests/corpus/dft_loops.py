"""Naive O(n^2) discrete Fourier transform of a complex128 signal by two loops with complex accumulation (matches np.fft.fft; DSP course exercise)."""
import math

import numpy as np

CATEGORY = "loop"

CVec = np.ndarray[tuple[int], np.dtype[np.complex128]]


def dft(x: CVec):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        s = 0j
        for t in range(n):
            angle = -2.0 * math.pi * k * t / n
            s += x[t] * (math.cos(angle) + 1j * math.sin(angle))
        out[k] = s
    return out


ENTRY = "dft"


def _signal(rng, n):
    return rng.standard_normal(n) + 1j * rng.standard_normal(n)


def cases(rng: np.random.Generator) -> list[tuple]:
    t = np.arange(64)
    tone = np.exp(2j * np.pi * 5.0 * t / 64) + 0.5 * np.cos(2 * np.pi * 9.3 * t / 64)
    return [
        (np.zeros(0, dtype=np.complex128),),
        (np.array([1.5 - 2.0j]),),
        (_signal(rng, 2),),
        (_signal(rng, 7),),
        (_signal(rng, 31),),
        (tone.astype(np.complex128),),
        (_signal(rng, 97),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_signal(rng, 256),)
