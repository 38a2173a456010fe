"""Programs everypath must refuse. Each offending line ends with a marker:
``# expect: COL | message fragment`` (COL is 1-based, as printed). Not imported by pytest as tests."""
import numpy as np

F64_1D = np.ndarray[tuple[int], np.dtype[np.float64]]
F64_2D = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def uses_try_star(x: F64_1D) -> float:
    y = 0.0
    try:  # expect: 5 | 'except*' (exception groups) is not supported
        y = float(x[0])
    except* IndexError:
        pass
    return y


def uses_mapping_pattern(x: F64_1D) -> float:
    match {"a": 1.0}:
        case {"a": v}:  # expect: 14 | mapping patterns ({...}) in match statements are not supported
            return v
    return 0.0


def uses_global(x: F64_1D) -> float:
    global F64_1D  # expect: 5 | 'global' is not supported
    return 1.0


def undefined_name(x: F64_1D) -> float:
    return x[0] + missing_value  # expect: 19 | name 'missing_value' is not defined


def array_plus_string(x: F64_1D) -> F64_1D:
    return x + "a"  # expect: 12 | np.add


def too_many_indices(x: F64_2D) -> float:
    return x[0, 1, 2]  # expect: 12 | too many indices for array: array is 2-dimensional, but 3 were indexed


def changes_kind(x: F64_1D, flag: bool) -> float:
    if flag:
        y = 1.0
    else:
        y = x  # expect: 9 | variable 'y' holds float elsewhere but float64[:] here
    return y


def unsupported_numpy(x: F64_1D) -> F64_1D:
    return np.polyfit(x, x, 2)  # expect: 12 | np.polyfit is not supported yet


def _helper(a, b):
    return a + b


def missing_argument(x: F64_1D) -> float:
    return _helper(1.0)  # expect: 12 | _helper() missing required argument 'b'


def ambiguous_truth(x: F64_1D) -> float:
    if x > 0:  # expect: 5 | the truth value of an array is ambiguous
        return 1.0
    return 0.0


def wrong_return_annotation(x: F64_1D) -> int:  # expect: 43 | function returns np.ndarray[tuple[int], np.dtype[np.float64]] but is annotated 'int'
    return x * 2.0


def unknown_attribute(x: F64_1D) -> float:
    return x.foo  # expect: 12 | 'numpy.ndarray' object has no attribute 'foo'


def dict_unpacking(x: F64_1D) -> float:
    d = {**{"a": 1}}  # expect: 9 | '**' unpacking in a dict display is not supported
    return 0.0


def float_index(x: F64_1D) -> float:
    return x[1.5]  # expect: 12 | only integers, slices


def with_statement(x: F64_1D) -> float:
    with open("f") as fh:  # expect: 5 | 'with' statements are not supported
        pass
    return 0.0


def bytes_annotation(x: bytes) -> int:  # expect: 25 | unsupported annotation 'bytes'
    return 0


def generator(x: F64_1D):
    y = yield x[0]  # expect: 9 | the value of a yield expression (what send() passes in) is not supported


def int_float_call(n: int) -> int:
    return range(1.5)  # expect: 12 | 'float' object cannot be interpreted as an integer
