"""Python str in compiled code, written the way pre- and post-processing code uses it (tokenise, parse
"key=value" lines, build and pad labels, Caesar shifts, ...), every result compared with CPython's own:
value, exact type, and exception type and message. Helpers are grouped under a few entry points so
that one build compiles many functions."""
from __future__ import annotations

import functools
import unicodedata

import pytest

import everypath as ep
from everypath.variants import unicode_tables
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same

# ---- helpers: each one a small function a user would write --------------------------------


def count_words(text: str) -> int:
    return len(text.split())


def tokenise(text: str) -> list[str]:
    out = []
    for word in text.lower().split():
        w = word.strip(".,;:!?\"'()")
        if w:
            out.append(w)
    return out


def count_vowels(text: str) -> int:
    n = 0
    for ch in text:
        if ch in "aeiouAEIOU":
            n += 1
    return n


def char_classes(text: str) -> tuple[int, int, int, int]:
    alpha = digit = space = alnum = 0
    for ch in text:
        alpha += ch.isalpha()
        digit += ch.isdigit()
        space += ch.isspace()
        alnum += ch.isalnum()
    return alpha, digit, space, alnum


def reverse_words(text: str) -> str:
    words = text.split()
    return " ".join(words[::-1])


def initials(name: str) -> str:
    return "".join([w[0].upper() for w in name.split()])


def longest_word(text: str) -> str:
    best = ""
    for w in text.split():
        if len(w) > len(best):
            best = w
    return best


def text_stats(text: str) -> tuple[int, list[str], int, tuple[int, int, int, int], str, str, str, str, int]:
    return (count_words(text), tokenise(text), count_vowels(text), char_classes(text), reverse_words(text),
            initials(text), text[::-1], longest_word(text), len(text))


def parse_kv(line: str) -> tuple[str, str]:
    key, value = line.split("=", 1)
    return key.strip(), value.strip()


def parse_record(line: str) -> tuple[str, str, int, float, list[str]]:
    """'name = value ; count = 3 ; ratio = 0.5 ; tags = a,b'"""
    fields = line.split(";")
    _, name = parse_kv(fields[0])
    count = int(parse_kv(fields[1])[1])
    ratio = float(parse_kv(fields[2])[1])
    tags = parse_kv(fields[3])[1].split(",")
    return parse_kv(fields[0])[0], name, count, ratio, tags


def normalise_label(s: str) -> str:
    return s.strip().lower().replace(" ", "_").replace("-", "_")


def build_label(name: str, score: float, idx: int) -> str:
    return f"{idx:03d}:{name:>8}|{score:.2f}|{score:8.3e}|{score:.1%}"


def table_row(name: str, count: int, ratio: float) -> str:
    return f"{name:<10}{count:>6}{ratio:>10.4f} {count:+d} {count:x} {count:#06b} {count:,} {ratio:g}"


def banner(title: str) -> str:
    return f"{title:^20}|{title:*^21}|{title:.3}|{title!r}"


def values_as_text(i: int, x: float, b: bool) -> str:
    return str(i) + "/" + str(x) + "/" + str(b) + "/" + str(-x / 3)


def labels(name: str, score: float, idx: int) -> tuple[str, str, str, str, str]:
    return (normalise_label(name), build_label(name, score, idx), table_row(name, idx, score), banner(name),
            values_as_text(idx, score, idx > 2))


def search(s: str, sub: str) -> tuple[int, int, int, int, int, int, bool, bool]:
    return (s.find(sub), s.rfind(sub), s.count(sub), s.find(sub, 2), s.find(sub, -4, -1), s.count(sub, 1, 6),
            sub in s, sub not in s)


def affixes(s: str) -> tuple[bool, bool, bool, bool]:
    return (s.startswith("http"), s.endswith((".png", ".jpg")), s.startswith(("x", "ht")), s.endswith(""))


def slices(s: str) -> tuple[str, str, str, str, str, str]:
    return s[1:-1], s[::2], s[-3:], s[:100], s[5:2], s[::-2]


def edits(s: str, n: int) -> tuple[str, str, str, str, str, str, str]:
    return (s.replace("a", "A"), s.replace("a", "", 1), s.replace("", "-"), "-" * n, n * "ab",
            s.lstrip("ab"), s.rstrip())


def layout(s: str, n: int) -> tuple[str, str, str, str, str, tuple[str, str, str], tuple[str, str, str]]:
    return s.ljust(n), s.rjust(n, "·"), s.center(n), s.center(n + 1, "*"), s.zfill(n), s.partition(","), s.rpartition(",")


def compare(a: str, b: str) -> tuple[bool, bool, bool, bool, str, str]:
    lo = a if a < b else b
    hi = a if a >= b else b
    return a == b, a != b, a <= b, a > b, lo, hi


def splits(s: str) -> tuple[list[str], list[str], list[str], list[str], list[str], list[str], list[str], list[str], str]:
    return (s.split(None, 1), s.split(",", 2), s.split(","), s.split(maxsplit=2), s.strip().split(" "),
            s.rsplit(",", 1), s.rsplit(None, 1), s.rsplit(maxsplit=0), "/".join((s, s[:2])))


def caesar(s: str, k: int) -> str:
    out = ""
    for ch in s:
        if "a" <= ch <= "z":
            out += chr((ord(ch) - ord("a") + k) % 26 + ord("a"))
        elif "A" <= ch <= "Z":
            out = out + chr((ord(ch) - ord("A") + k) % 26 + ord("A"))
        else:
            out += ch
    return out


def cipher(s: str, k: int) -> tuple[str, str, int, str]:
    enc = caesar(s, k)
    total = 0
    for i, ch in enumerate(s):
        total += ord(ch) * (i + 1)
    return enc, caesar(enc, 26 - k), total, chr(total % 1000 + 32)


def kitchen_sink(s: str, sub: str, n: int):  # noqa: ANN201 - the result's type is inferred
    return (search(s, sub), affixes(s), slices(s), edits(s, n), splits(s), compare(s, sub), s.upper(), s.lower(),
            layout(s, n + 8), layout(sub, n))


def format_specs(x: float, i: int, s: str, b: bool) -> tuple[str, str, str, str, str]:
    return (f"{x:010.3f}|{x:+.2e}|{x:,.2f}|{x:_}|{x:%}|{x:.0f}|{x:#.0f}|{x:G}|{x:.3}|{x:10}|{x:<12g}|{x: .1f}",
            f"{i:_x}|{i:#X}|{i:=+8}|{i:e}|{i:^9,}|{i:o}|{i:#b}|{i:08}|{i:_}|{i:.2f}|{i:-^7d}",
            f"{s:x<6}|{s:.2}|{s:05}|{s:>3}|{s:^7.1}|{s!r:>12}|{s:}",
            f"{b:>5}|{b}|{b:d}|{x:>+10.2%}|{-x:e}",
            f"{x!s:>25}|{i!r:<4}|{float(i):.1f}|{str(x):.4}")


def strings_fail(s: str, i: int, mode: int) -> int:
    if mode == 0:
        return len(s[i])
    if mode == 1:
        return int(s)
    if mode == 2:
        return int(float(s))
    if mode == 3:
        return ord(s)
    if mode == 4:
        return len(chr(i))
    if mode == 5:
        return len(s.split(""))
    if mode == 6:
        return s.index("zz")
    if mode == 8:
        return len(s.upper())
    if mode == 9:
        key, value = s.split("=")
        return len(key) + len(value)
    return len(s.lower())


def case_and_classes(s: str) -> tuple[str, str, tuple[int, int, int, int], str]:
    return s.upper(), s.lower(), char_classes(s), f"{s!r}"


# ---- checks -------------------------------------------------------------------------------
def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got)


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per entry point for the whole module
    return ep.compile(fn)


def run_both(fn, *args):  # noqa: ANN001, ANN201
    try:
        want = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the compiled call must raise the same
        with pytest.raises(type(exc)) as got:
            compiled(fn)(*args)
        assert str(got.value) == str(exc)
        return
    same(compiled(fn)(*args), want)


TEXTS = ["The quick brown fox jumps over the lazy dog.", "  Hello, World!  It's 2024 (again).  ", "",
         "héllo wörld ÀÉÎ straße", "emoji 👋🌍 text\ttabs\nlines", "a", "   ", "x1 y22 z333"]


@pytest.mark.parametrize("text", TEXTS)
def test_text_stats(text: str) -> None:
    run_both(text_stats, text)


@pytest.mark.parametrize("line", ["name = alpha ; count = 3 ; ratio = 0.5 ; tags = a,b,c",
                                  "k=v;count= -12 ;ratio=1e-3;tags=", " ké = wörld;count=1_000;ratio= inf ;tags=x",
                                  "a=b;count=x;ratio=1;tags=t", "a=b;count=2;ratio=1.5.2;tags=t", "no equals here"])
def test_parse_record(line: str) -> None:
    run_both(parse_record, line)


@pytest.mark.parametrize(("name", "score", "idx"), [("Dog Breed", 0.91234, 7), ("  Traffic-Light ", -12.5, 1234567),
                                                    ("é", 1e20, 0), ("", 0.0, -3), ("ab'c", float("nan"), 255)])
def test_labels(name: str, score: float, idx: int) -> None:
    run_both(labels, name, score, idx)


@pytest.mark.parametrize(("s", "sub", "n"), [("banana,apple,cherry", "an", 3), ("http://x.org/a.png", "a", 0),
                                             ("", "", 2), ("ab ab  ab", "ab", -1), ("héllo,wörld,ünïcode", "ö", 2),
                                             ("👋a👋b👋", "👋", 1)])
def test_kitchen_sink(s: str, sub: str, n: int) -> None:
    run_both(kitchen_sink, s, sub, n)


@pytest.mark.parametrize(("x", "i", "s", "b"), [(3.14159, 1234567, "héllo", True), (-0.0, -255, "", False),
                                              (1e22, 0, "a'b", True), (float("inf"), 7, "👋", False),
                                              (float("nan"), -1, "abc\tdef", True), (123456.789, 10**15, "x", False)])
def test_format_specs_match_cpython(x: float, i: int, s: str, b: bool) -> None:
    run_both(format_specs, x, i, s, b)


@pytest.mark.parametrize(("s", "k"), [("Hello, World!", 3), ("xyz XYZ abc", 25), ("", 5), ("héllo", 13)])
def test_cipher(s: str, k: int) -> None:
    run_both(cipher, s, k)


@pytest.mark.parametrize(("s", "i", "mode"), [
    ("abc", 3, 0), ("abc", -4, 0), ("abc", -3, 0), ("héllo", 1, 0), ("", 0, 0),
    ("x", 0, 1), (" 42 ", 0, 1), ("-1_000", 0, 1), ("1__0", 0, 1), ("4.5", 0, 1), ("", 0, 1), ("+7", 0, 1),
    ("abc", 0, 2), ("  -2.5e3 ", 0, 2), (".5", 0, 2), ("1e", 0, 2), ("nan", 0, 2),
    ("ab", 0, 3), ("é", 0, 3), ("", 0, 3),
    ("", -1, 4), ("", 0x110000, 4), ("", 233, 4), ("", 0x1F44B, 4),
    ("a,b", 0, 5), ("abc", 0, 6), ("xxzz", 0, 6), ("a=b=c", 0, 9), ("a=bc", 0, 9), ("abc", 0, 9),
])
def test_errors_match_cpython(s: str, i: int, mode: int) -> None:
    run_both(strings_fail, s, i, mode)


def test_latin1_text_matches_cpython() -> None:
    text = "".join(chr(c) for c in range(256))
    run_both(text_stats, text)
    run_both(kitchen_sink, text, "é", 1)
    run_both(labels, text, 1.0, 2)  # repr() of every Latin-1 character in a banner


def test_case_mapping_and_classes_of_every_code_point_match_cpython() -> None:
    if not unicode_tables.current():
        pytest.skip(f"the compiled tables are not this Python's Unicode {unicodedata.unidata_version}")
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and c != 0x3A3)
    run_both(case_and_classes, every)


def test_final_sigma_is_refused_at_run_time_not_guessed() -> None:
    with pytest.raises(NotImplementedError, match="Σ"):
        compiled(strings_fail)("ΟΔΟΣ", 0, 7)
    run_both(strings_fail, "ΟΔΟΣ", 0, 8)  # upper() has no context rule


def test_str_result_is_exact_str_and_list_of_str() -> None:
    got = compiled(text_stats)("A b, C!")[1]
    assert type(got) is list and all(type(w) is str for w in got) and got == ["a", "b", "c"]


def method_not_supported(s: str) -> list[str]:
    return s.expandtabs().split()  # splitlines() is supported now (H-corp, issue 14)


def add_int(s: str, n: int) -> str:
    return s + n  # type: ignore[operator]


def encode_it(s: str) -> int:
    return len(s.encode())


@pytest.mark.parametrize(("fn", "message"), [
    (method_not_supported, "method .expandtabs() of str is not supported"),
    (add_int, 'can only concatenate str (not "int") to str'),
    (encode_it, "method .encode() of str is not supported"),
])
def test_unsupported_operations_are_located_compile_errors(fn, message: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError) as err:
        ep.compile(fn)("a,b")
    text = str(err.value)
    assert message in text and "test_strings.py:" in text and "^" in text
