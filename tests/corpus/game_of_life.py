"""Conway's Game of Life on a torus (wrap-around neighbours) for a bool grid, visiting cells with np.ndindex."""
import numpy as np

CATEGORY = "loop"

Grid = np.ndarray[tuple[int, int], np.dtype[np.bool_]]


def life(grid: Grid, steps: int = 1) -> Grid:
    h, w = grid.shape
    cur = grid.copy()
    for _ in range(steps):
        nxt = np.zeros((h, w), dtype=np.bool_)
        for i, j in np.ndindex(cur.shape):
            count = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di == 0 and dj == 0:
                        continue
                    if cur[(i + di) % h, (j + dj) % w]:
                        count += 1
            if cur[i, j]:
                nxt[i, j] = count == 2 or count == 3
            else:
                nxt[i, j] = count == 3
        cur = nxt
    return cur


ENTRY = "life"


def cases(rng: np.random.Generator) -> list[tuple]:
    glider = np.zeros((8, 8), dtype=bool)
    glider[0, 1] = glider[1, 2] = glider[2, 0] = glider[2, 1] = glider[2, 2] = True
    return [
        (np.zeros((0, 0), dtype=bool),),
        (np.ones((1, 1), dtype=bool),),
        (rng.random((3, 5)) < 0.5, 2),
        (glider, 4),
        (rng.random((13, 17)) < 0.3, 3),
        (rng.random((40, 31)) < 0.4, 1),
        (rng.random((5, 5)) < 0.5, 0),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.random((48, 48)) < 0.35, 2)
