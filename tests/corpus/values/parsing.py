"""Parsing as config and data loaders write it: key=value lines, CSV, durations, sizes, versions, validators."""

ENTRIES = ("parse_kv_lines", "parse_config", "parse_bool", "parse_int_list", "is_identifier", "is_number",
           "is_email", "split_csv_line", "parse_csv", "parse_duration", "parse_size", "parse_version",
           "compare_versions", "parse_query", "parse_ini", "index_log", "to_int", "to_float", "order_totals", "float_text_roundtrip",
           "int_to_base", "parse_hex_color", "parse_range_list", "strip_comments")
# compiler gaps these functions found (the located error they fail with today; the test expects exactly that)
KNOWN: dict[str, str] = {}


def parse_kv_lines(text: str) -> dict[str, str]:
    out = {}
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ValueError(f"line without '=': {line!r}")
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def cases_parse_kv_lines() -> list[tuple]:
    return [("a = 1\nb=two\n# comment\n\nc = x=y",), ("",), ("dup=1\ndup=2",), ("novalue",), (" ké = wörld ",),
            ("=empty key",)]


def bench_parse_kv_lines() -> tuple:
    return ("\n".join(f"key{i % 500} = value {i}" if i % 7 else "# comment" for i in range(40000)),)


def parse_config(s: str) -> dict[str, float]:
    cfg = {"lr": 0.001, "momentum": 0.9, "epochs": 10.0}
    for part in s.split(";"):
        part = part.strip()
        if not part:
            continue
        name, _, value = part.partition("=")
        name = name.strip().lower()
        if name not in cfg:
            raise KeyError(name)
        cfg[name] = float(value)
    return cfg


def cases_parse_config() -> list[tuple]:
    return [("lr=0.1; momentum = 0.5",), ("",), ("EPOCHS=3;;",), ("lr=fast",), ("batch=32",), ("lr= 1e-4 ",),
            ("lr=inf",), ("lr",)]


def bench_parse_config() -> tuple:
    return ("; ".join(["lr=0.1", "momentum=0.95", "epochs=30"] * 10000),)


TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def parse_bool(s: str) -> bool:
    v = s.strip().lower()
    if v in TRUE:
        return True
    if v in FALSE:
        return False
    raise ValueError(f"not a boolean: {s!r}")


def cases_parse_bool() -> list[tuple]:
    return [("yes",), (" TRUE ",), ("0",), ("Off",), ("",), ("maybe",), ("ja'",)]


def parse_int_list(s: str) -> list[int]:
    return [int(tok) for tok in s.split(",") if tok.strip()]


def cases_parse_int_list() -> list[tuple]:
    return [("1, 2, 3",), ("",), (" -4 ,+5,,6 ",), ("1,two,3",), ("1_000,2",), ("3.5",)]


def bench_parse_int_list() -> tuple:
    return (",".join(str(i * 37 % 1000) for i in range(100000)),)


def is_identifier(s: str) -> bool:
    if not s:
        return False
    first = s[0]
    if not (first.isalpha() or first == "_"):
        return False
    for ch in s[1:]:
        if not (ch.isalnum() or ch == "_"):
            return False
    return True


def cases_is_identifier() -> list[tuple]:
    return [("name",), ("_x1",), ("1x",), ("",), ("a-b",), ("héllo",), ("a b",), ("__init__",)]


def is_number(s: str) -> bool:
    s = s.strip()
    if s[:1] in ("+", "-"):
        s = s[1:]
    mantissa, _, exponent = s.lower().partition("e")
    whole, dot, frac = mantissa.partition(".")
    if not (whole + frac) or not (whole + frac).isdigit():
        return False
    if _ or exponent:
        if exponent[:1] in ("+", "-"):
            exponent = exponent[1:]
        return exponent.isdigit()
    return True


def cases_is_number() -> list[tuple]:
    return [("42",), ("-3.5",), ("1e10",), ("1e",), (".5",), ("5.",), (".",), ("",), ("abc",), (" +2.5E-3 ",),
            ("1.2.3",), ("٣",)]


def is_email(s: str) -> bool:
    if s.count("@") != 1:
        return False
    user, domain = s.split("@")
    if not user or "." not in domain:
        return False
    if domain.startswith(".") or domain.endswith("."):
        return False
    return " " not in s


def cases_is_email() -> list[tuple]:
    return [("a@b.com",), ("a@b",), ("@b.com",), ("a@@b.com",), ("a b@c.de",), ("x@.com",), ("",), ("ü@ß.de",)]


def split_csv_line(line: str, sep: str = ",") -> list[str]:
    fields = []
    field = ""
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"':
                if i + 1 < len(line) and line[i + 1] == '"':
                    field += '"'
                    i += 1
                else:
                    quoted = False
            else:
                field += ch
        elif ch == '"':
            quoted = True
        elif ch == sep:
            fields.append(field)
            field = ""
        else:
            field += ch
        i += 1
    if quoted:
        raise ValueError("unterminated quote")
    fields.append(field)
    return fields


def cases_split_csv_line() -> list[tuple]:
    return [('a,b,"c,d",e',), ("",), ('"say ""hi""",x',), ("a;b", ";"), ('"open',), ("é,👋,",)]


def bench_split_csv_line() -> tuple:
    return (",".join(f'"field {i}, quoted"' if i % 3 == 0 else f"f{i}" for i in range(30000)),)


def parse_csv(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return []
    header = split_csv_line(lines[0])
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        fields = split_csv_line(line)
        if len(fields) != len(header):
            raise ValueError(f"line {n}: expected {len(header)} fields, got {len(fields)}")
        rows.append(dict(zip(header, fields)))
    return rows


def cases_parse_csv() -> list[tuple]:
    return [("name,age\nann,31\nbob,27\n",), ("",), ("a,b\n1,2,3",), ('k,v\n"x,y",1',), ("only\n",)]


def bench_parse_csv() -> tuple:
    return ("id,name,score\n" + "\n".join(f"{i},name{i},{i * 0.5}" for i in range(20000)),)


UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(s: str) -> int:
    total = 0
    num = ""
    for ch in s.replace(" ", ""):
        if ch.isdigit():
            num += ch
        elif ch in UNITS:
            if not num:
                raise ValueError(f"missing number before {ch!r} in {s!r}")
            total += int(num) * UNITS[ch]
            num = ""
        else:
            raise ValueError(f"unknown unit {ch!r} in {s!r}")
    if num:
        total += int(num)
    return total


def cases_parse_duration() -> list[tuple]:
    return [("1h30m",), ("2d 3h 4m 5s",), ("",), ("90",), ("5x",), ("h",), ("10m5",)]


def bench_parse_duration() -> tuple:
    return ("1d2h3m4s" * 20000,)


SIZE_UNITS = {"b": 1, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3}


def parse_size(s: str) -> int:
    s = s.strip().lower()
    i = 0
    while i < len(s) and (s[i].isdigit() or s[i] == "."):
        i += 1
    number, unit = s[:i], s[i:].strip() or "b"
    if unit not in SIZE_UNITS:
        raise ValueError(f"unknown size unit: {unit!r}")
    return int(float(number) * SIZE_UNITS[unit])


def cases_parse_size() -> list[tuple]:
    return [("10KB",), ("1.5 MiB",), ("512",), (" 2 gb ",), ("3 parsecs",), ("",), ("kb",)]


def parse_version(s: str) -> tuple[int, int, int]:
    parts = s.strip().lstrip("v").split(".")
    if len(parts) > 3:
        raise ValueError(f"too many components in version {s!r}")
    nums = [int(p) for p in parts]
    while len(nums) < 3:
        nums.append(0)
    return nums[0], nums[1], nums[2]


def cases_parse_version() -> list[tuple]:
    return [("1.2.3",), ("v2",), ("0.10",), ("1.2.3.4",), ("1.x",), ("",), (" v3.0.1 ",)]


def compare_versions(a: str, b: str) -> int:
    va, vb = parse_version(a), parse_version(b)
    if va < vb:
        return -1
    return 1 if va > vb else 0


def cases_compare_versions() -> list[tuple]:
    return [("1.2.3", "1.10.0"), ("2", "2.0.0"), ("3.1", "3.0.9"), ("1.a", "1")]


def parse_query(q: str) -> dict[str, list[str]]:
    params = {}
    for pair in q.lstrip("?").split("&"):
        if not pair:
            continue
        key, _, value = pair.partition("=")
        params.setdefault(key.replace("+", " "), []).append(value.replace("+", " "))
    return params


def cases_parse_query() -> list[tuple]:
    return [("?a=1&b=2&a=3",), ("",), ("q=hello+world&flag&x=",), ("&&k=v&&",), ("é=ü",)]


def bench_parse_query() -> tuple:
    return ("&".join(f"k{i % 50}=v{i}" for i in range(50000)),)


def parse_ini(text: str) -> dict[str, dict[str, str]]:
    sections = {}
    current = "DEFAULT"
    for n, raw in enumerate(text.split("\n")):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            sections.setdefault(current, {})
        elif "=" in line:
            k, v = line.split("=", 1)
            sections.setdefault(current, {})[k.strip()] = v.strip()
        else:
            raise ValueError(f"line {n + 1}: cannot parse {line!r}")
    return sections


def cases_parse_ini() -> list[tuple]:
    return [("[db]\nhost = localhost\nport=5432\n\n[log]\nlevel=info\n; c",), ("",), ("top=1\n[s]\n",),
            ("[a]\nbad line",), ("[a]\nx=1\n[a]\ny=2",)]


def index_log(log: str) -> dict[str, dict[str, list[int]]]:
    """'LEVEL logger: message' lines -> level -> logger -> line numbers (from 1), for a log viewer's filters."""
    if not log.strip():
        return {}
    index = {}
    for n, line in enumerate(log.split("\n"), start=1):
        head, sep, _ = line.partition(":")
        if not sep:
            continue
        level, _, logger = head.strip().partition(" ")
        index.setdefault(level.upper(), {}).setdefault(logger.strip() or "root", []).append(n)
    return index


def cases_index_log() -> list[tuple]:
    return [("INFO app.db: connected\nwarn app.db: slow\nINFO app.http: GET /\n\nINFO app.db: query",),
            ("",), ("  \n ",), ("no colon here",), ("ERROR: no logger\nERROR  : twice",), ("é ü: ß",)]


def to_int(s: str) -> int:
    return int(s)


def cases_to_int() -> list[tuple]:
    return [("42",), (" -7 ",), ("1_000",), ("",), ("4.0",), ("0x10",), ("+0",), ("٣",), ("99999999999",),
            ("١٢٣",), ("１２",), ("\u3000 -42\u2003",), ("\xa0+٧_٠\x85",), ("²",), ("\x1c5",), ("5\x7f",), ("1 2",),
            ("x" * 250,), ("𝟗𝟖",), ("١x",)]


def to_float(s: str) -> float:
    return float(s)


def cases_to_float() -> list[tuple]:
    return [("3.14",), (" -1e-3 ",), ("inf",), ("-NaN",), ("1_0.5",), ("",), ("1,5",), ("infinity",), (".e1",),
            ("١.٥e١",), ("\u3000-３.５ ",), ("½",), ("\x1c1.0",), ("y" * 250,)]


def order_totals(form: str) -> tuple[int, float]:
    """'qty x price' lines typed on any keyboard: Arabic-Indic or full-width digits, no-break spaces."""
    items = 0
    total = 0.0
    for line in form.split("\n"):
        if not line.strip():
            continue
        qty, _, price = line.partition("x")
        n = int(qty)
        items += n
        total += n * float(price)
    return items, total


def cases_order_totals() -> list[tuple]:
    return [("٣ x ٢.٥\n１２x０.５",), ("",), ("2 x 1.5\n\u00a0۴ x ۱۰\u2009",), ("two x 1",), ("3 x ½",), ("1_0 x 0.1",),
            ("٣x",)]


def float_text_roundtrip(x: float) -> tuple[str, float, str, bool]:
    text = str(x)
    back = float(text)
    return text, back, repr(back), back == x


def cases_float_text_roundtrip() -> list[tuple]:
    return [(0.1,), (1e22,), (-0.0,), (1 / 3,), (float("inf"),), (123456789.125,), (5e-324,), (1e16,)]


DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def int_to_base(n: int, base: int) -> str:
    if not 2 <= base <= 36:
        raise ValueError(f"base must be in 2..36, not {base}")
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = ""
    while n:
        n, r = divmod(n, base)
        out = DIGITS[r] + out
    return sign + out


def cases_int_to_base() -> list[tuple]:
    return [(255, 16), (255, 2), (0, 7), (-42, 36), (10, 1), (2 ** 62, 3)]


def bench_int_to_base() -> tuple:
    return (2 ** 62 + 12345, 2)


def parse_hex_color(s: str) -> tuple[int, int, int]:
    h = s.lstrip("#").lower()
    if len(h) == 3:
        h = h[0] * 2 + h[1] * 2 + h[2] * 2
    if len(h) != 6:
        raise ValueError(f"bad colour {s!r}")
    digits = "0123456789abcdef"
    vals = [digits.index(h[i]) * 16 + digits.index(h[i + 1]) for i in range(0, 6, 2)]
    return vals[0], vals[1], vals[2]


def cases_parse_hex_color() -> list[tuple]:
    return [("#ff8800",), ("#FFF",), ("123456",), ("#12",), ("#gg0000",), ("",)]


def parse_range_list(s: str) -> list[int]:
    """'1-3,5,8-9' -> [1, 2, 3, 5, 8, 9] (page ranges, CPU lists)."""
    out = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-")
            a, b = int(lo), int(hi)
            if a > b:
                raise ValueError(f"empty range {part!r}")
            out.extend(range(a, b + 1))
        else:
            out.append(int(part))
    return out


def cases_parse_range_list() -> list[tuple]:
    return [("1-3,5,8-9",), ("",), ("7",), ("5-2",), ("1-2-3",), ("a-b",), (" 0 - 2 , 4 ",)]


def bench_parse_range_list() -> tuple:
    return (",".join(f"{i * 10}-{i * 10 + 5}" for i in range(10000)),)


def strip_comments(source: str) -> str:
    out = []
    for line in source.split("\n"):
        in_str = False
        cut = len(line)
        for i, ch in enumerate(line):
            if ch == '"':
                in_str = not in_str
            elif ch == "#" and not in_str:
                cut = i
                break
        kept = line[:cut].rstrip()
        if kept:
            out.append(kept)
    return "\n".join(out)


def cases_strip_comments() -> list[tuple]:
    return [('x = 1  # one\n# all\ny = "a#b"  # c\n',), ("",), ("#",), ('s = "#"',)]


def bench_strip_comments() -> tuple:
    return ('value = compute(x, "a#b")  # explain\n' * 20000,)
