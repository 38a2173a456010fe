"""Call counts and latency percentiles of every call, for the dashboard's queries, under its filters.

Counts and percentiles come from the lake's exact `aggregates` (every call counted, never
dropped), merged with the raw rows that no aggregates cover (`calls_uncovered`: producers without
aggregates, older lakes; each row weighing 1 / inclusion) by telemetry.rollup.merged_sql: a
percentile is the midpoint of the histogram bin holding the nearest-rank value, within 0.78% of
the exact one (1.6% where the shim counted TSC ticks). Raw rows alone serve what needs single calls
(exploration flags, features of a call). Filters apply to both: an aggregate row is one drain
interval (5 s by default), selected by the interval's end `ts`.

A `Key` is a grouping column written for each source (a size bucket is computed from n_elements
in a raw row and from size_bucket in an aggregate); only enum-derived text is formatted into SQL.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from everypath.telemetry.rollup import DIALECTS, Engine, bin_mid_sql, bin_of_sql, merged_sql

if TYPE_CHECKING:
    from everypath.dashboard.queries import Filters, TimeUnit


@dataclass(frozen=True)
class Key:
    name: str
    raw: str  # over a calls row
    agg: str  # over an aggregates row


def column(name: str) -> Key:
    return Key(name, name, name)


BUCKET = Key("bucket", "floor(log2(greatest(n_elements, 1)))::INTEGER", "greatest(size_bucket - 1, 0)::INTEGER")


def period(unit: TimeUnit) -> Key:
    """UTC periods by integer division of epoch ns (an aggregate row: its interval's end)."""
    ns = unit.seconds * 10**9
    return Key("p", f"epoch_ns(ts) // {ns}", f"epoch_ns(ts) // {ns}")


def sources(f: Filters, keys: Sequence[Key]) -> tuple[str, list[object]]:
    """`WITH a AS (aggregates), r AS (uncovered raw rows)`, both filtered and projected on keys."""
    where, params = f.where()
    ak = "".join(f"{k.agg} AS {k.name}, " for k in keys)
    rk = "".join(f"{k.raw} AS {k.name}, " for k in keys)
    return (f"WITH a AS (SELECT {ak}count, timed, sum_ns, min_ns, max_ns, hist_bin, hist_count FROM aggregates{where}), "
            f"r AS (SELECT {rk}latency_ns, w FROM calls_uncovered{where}) "), [*params, *params]


def counts(f: Filters, keys: Sequence[Key]) -> tuple[str, list[object]]:
    """Per keys: calls (BIGINT), every call counted."""
    head, params = sources(f, keys)
    k = "".join(f"{x.name}, " for x in keys)
    group = f" GROUP BY {k.removesuffix(', ')}" if keys else ""
    return (f"{head}SELECT {k}CAST(round(sum(n)) AS BIGINT) AS calls "
            f"FROM (SELECT {k}count AS n FROM a UNION ALL SELECT {k}w FROM r){group}"), params


def latencies(f: Filters, keys: Sequence[Key], quantiles: Sequence[float], names: Sequence[str]
              ) -> tuple[str, list[object]]:
    """Per keys: n (calls), sum_ns, min_ns, max_ns and the quantiles (ns) as names."""
    head, params = sources(f, keys)
    return head + merged_sql(Engine.DUCKDB, "a", "r", [k.name for k in keys], quantiles, names), params


def histogram(f: Filters, keys: Sequence[Key], bins_per_octave: int) -> tuple[str, list[object]]:
    """Per keys and coarse log2 bin b (bins_per_octave per octave): calls. Fine bins (64 per octave)
    go to the coarse bin of their midpoint; a raw row is binned as the shim bins it, then likewise."""
    head, params = sources(f, keys)
    d = DIALECTS[Engine.DUCKDB]
    k = ", ".join(x.name for x in keys)
    coarse = f"floor(log2(greatest({bin_mid_sql(d, 'bin')}, 1)) * {int(bins_per_octave)})::INTEGER"
    return (f"{head}SELECT {k}, {coarse} AS b, CAST(round(sum(c)) AS BIGINT) AS calls "
            f"FROM (SELECT {k}, unnest(hist_bin) AS bin, unnest(hist_count) AS c FROM a "
            f"UNION ALL SELECT {k}, {bin_of_sql(d, 'latency_ns')} AS bin, w AS c FROM r) GROUP BY ALL"), params
