"""Great-circle distances between arrays of (lat, lon) points in degrees by the haversine formula: vectorised trigonometry, then math.asin per element in a zip loop (geopy / sklearn haversine)."""
import math

import numpy as np

CATEGORY = "mixed"

EARTH_RADIUS_KM = 6371.0088
DEG2RAD = math.pi / 180.0

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def haversine(lat1: Vec, lon1: Vec, lat2: Vec, lon2: Vec) -> Vec:
    p1 = lat1 * DEG2RAD
    p2 = lat2 * DEG2RAD
    dlat = p2 - p1
    dlon = (lon2 - lon1) * DEG2RAD
    a = np.sin(dlat / 2.0) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlon / 2.0) ** 2
    a = np.clip(a, 0.0, 1.0)
    out = np.empty_like(a)
    for i, ai in enumerate(a):
        out[i] = 2.0 * EARTH_RADIUS_KM * math.asin(math.sqrt(ai))
    return out


ENTRY = "haversine"


def _coords(rng, n):
    return rng.uniform(-90.0, 90.0, n), rng.uniform(-180.0, 180.0, n)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (*_coords(rng, 0), *_coords(rng, 0)),
        (np.array([51.5]), np.array([-0.13]), np.array([48.86]), np.array([2.35])),
        (np.array([0.0, 90.0, 10.0]), np.array([0.0, 0.0, 20.0]), np.array([0.0, -90.0, 10.0]), np.array([180.0, 0.0, 20.0])),
        (*_coords(rng, 7), *_coords(rng, 7)),
        (*_coords(rng, 997), *_coords(rng, 997)),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (*_coords(rng, 200_000), *_coords(rng, 200_000))
