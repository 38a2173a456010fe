"""Operator call sites of one translation unit, as the runtime shim sees them.

Every array-level operator call (a registry call with an array operand or result, a fused
element-wise expression, a fused sum) is one site: the generated code runs it through
``ep::tele::site`` (variants/include/everypath/telemetry.hpp), which chooses the variant,
times it and records it when telemetry is on; the unit ends with the static site table
(function, operator, file:line, dtype, variants) that the host registers when it loads
the library (``ep_telemetry_attach``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from everypath.base.cpp import c_string
from everypath.base.types import ArrayT, ListT, ScalarT, TupleT, Type
from everypath.tracer.globals import source_module
from everypath.variants.registry import Family, Operator, Variant

# calls that are not recorded: Python builtins and math on scalars, containers, and views or
# metadata of arrays (O(1); a record would cost more than the call)
_UNRECORDED_FAMILIES = frozenset({Family.BUILTIN, Family.MATH, Family.CONTAINER})
_VIEWS_AND_METADATA = frozenset({
    "ndarray.item", "ndarray.reshape", "ndarray.transpose", "numpy.atleast_1d", "numpy.atleast_2d",
    "numpy.atleast_3d", "numpy.broadcast_to", "numpy.diagonal", "numpy.expand_dims", "numpy.flip", "numpy.fliplr",
    "numpy.flipud", "numpy.moveaxis", "numpy.reshape", "numpy.squeeze", "numpy.swapaxes", "numpy.transpose",
    "numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit", "numpy.rot90",
    "tensor.dim", "tensor.ndimension", "tensor.numel", "tensor.size", "tensor.item", "tensor.view", "tensor.detach",
    "tensor.numpy", "tensor.reshape", "tensor.contiguous", "torch.from_numpy", "torch.permute", "torch.reshape",
    "torch.squeeze", "torch.t", "torch.transpose", "torch.unsqueeze", "torch.flatten",
})


def _has_array(t: Type | None) -> bool:
    if isinstance(t, ArrayT):
        return True
    if isinstance(t, (TupleT,)):
        return any(_has_array(x) for x in t.items)
    if isinstance(t, ListT):
        return _has_array(t.elem)
    return False


def recorded(op: Operator, types: list[Type | None]) -> bool:
    """Whether a call of op with these operand/result types is an operator call the shim records."""
    return op.family not in _UNRECORDED_FAMILIES and op.key not in _VIEWS_AND_METADATA and any(
        _has_array(t) for t in types)


def dtype_name(t: Type | None) -> str:
    """The dtype a site reports: the result's (the first array of a tuple)."""
    if isinstance(t, (ArrayT, ScalarT)):
        return t.dtype.np.name
    if isinstance(t, TupleT):
        for x in t.items:
            name = dtype_name(x)
            if name:
                return name
    return ""


def site_function(module: str, qualname: str, filename: str) -> str:
    """The function a site reports: its file's package-qualified name and its qualname ('app.kernel',
    'pkg.app.kernel'). Never the import name: '__main__.kernel' from `python app.py` and
    'everypath_user.app.kernel' from `everypath compile` would bake two names into two builds."""
    return f"{source_module(filename, module)}.{qualname}"


@dataclass(frozen=True)
class Site:
    function: str  # site_function: package-qualified Python function
    op: str  # operator key (fused expressions: "fused:<root op>")
    call_site: str  # file.py:LINE
    dtype: str  # result dtype, "" when not an array or scalar
    variants: tuple[Variant, ...]


@dataclass
class SiteTable:
    sites: list[Site] = field(default_factory=list)

    def add(self, site: Site) -> int:
        self.sites.append(site)
        return len(self.sites) - 1

    def call(self, site: Site, exprs: list[str], operands: list[str]) -> str:
        """C++ running one of the site's variant expressions (same order as site.variants)."""
        k = self.add(site)
        thresholds = ", ".join(str(v.min_work) for v in site.variants)
        threaded = ", ".join("1" if v.path == "threads" else "0" for v in site.variants)
        work = f"ep::tele::work_of_all({', '.join(operands)})" if operands else "ep::tele::Work{}"
        lambdas = ", ".join(f"[&]() {{ return {e}; }}" for e in exprs)
        return f"ep::tele::site(ep_hub, ep_site_base + {k}, {{{thresholds}}}, {{{threaded}}}, {work}, {lambdas})"

    def preamble(self) -> list[str]:
        """TU statics the site calls refer to (before the functions)."""
        return ["static ep::tele::Hub* ep_hub = nullptr;  // set by ep_telemetry_attach", "static int32_t ep_site_base = 0;"]

    def table(self) -> list[str]:
        """The static site table and the export a host calls right after loading the library."""
        out = []
        if self.sites:
            out.append("static const ep::tele::SiteInfo ep_site_info[] = {")
            for s in self.sites:
                names = ",".join(v.path for v in s.variants)
                out.append(f"  {{{c_string(s.function)}, {c_string(s.op)}, {c_string(s.call_site)}, "
                           f"{c_string(s.dtype)}, {c_string(names)}}},")
            out.append("};")
        table = "ep_site_info" if self.sites else "nullptr"
        out += ["EP_EXPORT int32_t ep_telemetry_attach(ep::tele::Hub* hub) {",
                "  if (hub == nullptr || hub->abi != ep::tele::kHubAbi) return -1;",
                f"  ep_site_base = hub->add_sites(hub, {table}, {len(self.sites)});",
                "  ep_hub = hub;",
                f"  return {len(self.sites)};",
                "}"]
        return out
