"""A Python function compiled to native code, as every stage may use it (no telemetry: the public
everypath.CompiledFunction adds that).

A call is made in C whenever it can (everypath.lowering._dispatch, PEP 590 vectorcall): with every
module-global guard holding and a build that takes the arguments, the runtime Function is called
directly. Everything else (the first call, a re-bound global, an open signature meeting new types)
comes to CompiledFunction._call_slow, which builds or re-validates and publishes what C may call
next (_publish). Tools below the public face (`everypath ops bench`, `everypath autotune`) compile
through this class."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from everypath.base.errors import OpenSignatureError
from everypath.base.settings import Settings
from everypath.lowering._dispatch import Dispatcher as _Dispatcher  # light: plain C, no NumPy, no compiler
from everypath.lowering._dispatch import enable_vectorcall as _enable_vectorcall
from everypath.lowering.calls import Bound, entries, fast_key, with_hidden
from everypath.tracer.globals import ABSENT as _ABSENT  # light: no compiler import
from everypath.tracer.globals import same_items as _same_items
from everypath.tracer.globals import table_items as _table_items

KNOWN_OPTIONS = ("tag", "description", "metadata", "targets", "sandbox", "settings", "boundscheck")


@dataclass(frozen=True)
class CompileOptions:
    tag: str | None = None
    description: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    targets: tuple[str, ...] = ("host",)
    sandbox: bool = True
    boundscheck: bool | None = None  # None: Settings.boundscheck decides


class CompiledFunction(_Dispatcher):
    """A Python function compiled to native code; call it like the original.

    Compiles on the first call (or finds the ahead-of-time build in the cache).
    Fully annotated functions have one native entry; parameters whose
    annotation leaves the rank open are specialised per argument types.
    Calls are made by the C base class (see the module docstring).
    """

    # how lower layers recognise a compiled function without importing this module (tracer.statics)
    __everypath_compiled__ = True

    def __init__(self, pyfunc: types.FunctionType, options: CompileOptions, settings: Settings | None = None) -> None:
        if not isinstance(pyfunc, types.FunctionType):
            raise TypeError(f"everypath.compile expects a Python function, got {type(pyfunc).__name__}")
        functools.update_wrapper(self, pyfunc)
        self.py_function = pyfunc
        self.options = options
        self.settings = settings or Settings.from_env()
        if options.boundscheck is not None and options.boundscheck != self.settings.boundscheck:
            self.settings = dataclasses.replace(self.settings, boundscheck=options.boundscheck)
        self._native: Bound | None = None
        self._by_types: dict[tuple[Any, ...], Bound] = {}
        self._by_fast_key: dict[tuple[Any, ...], Bound] = {}  # cheap per-call key -> build
        self._signature: inspect.Signature | None = None
        self._module: Any = None
        self._source: str | None = None  # generated, not built (cpp_source before any build)
        self._lock = threading.Lock()  # every change of the builds, guards and what C may call
        self._open: bool | None = None
        # module globals the builds read: (namespace, name, object, a mutable table's items or None) checked on
        # every call (tracer.globals)
        self._guards: tuple[tuple[dict[str, Any], str, Any, tuple[Any, ...] | None], ...] = ()
        self._reads: dict[tuple[int, str], Any] = {}

    def _call_slow(self, *args: Any, **kwargs: Any) -> Any:
        """A call the C entry did not make: nothing built yet, a guard failed, or no build it knows
        takes these arguments (new types for an open signature; keywords there)."""
        native = self._native
        for ns, name, obj, items in self._guards:
            if ns.get(name, _ABSENT) is not obj or (items is not None and not _same_items(obj, items)):
                # re-bound or a table changed in place since the build: same value, or recompile
                self._revalidate()
                native = self._native
                break
        if native is None:
            native = self._native_for(args, kwargs)
        return native.call(*args, **kwargs)

    def _publish(self) -> None:
        """Tell the C entry the guards and the builds it may call (with self._lock held)."""
        params = list(self._signature.parameters.values()) if self._signature is not None else []
        self._dispatch_set(self._guards, entries(self._native, self._by_fast_key, params), _ABSENT)

    def _revalidate(self) -> None:
        """A global was re-bound: keep the builds if every digest is unchanged, else drop them all
        (the next build finds or makes the one for the new values through the cache)."""
        from everypath.tracer.globals import value_digest

        with self._lock:
            reads = list(self._reads.values())
            fresh = [dataclasses.replace(r, obj=r.namespace.get(r.name, _ABSENT)) for r in reads]
            if all(value_digest(f.obj) == r.digest for f, r in zip(fresh, reads)):
                self._reads = {}
                self._add_guards(fresh)
            else:
                self._native, self._open, self._module, self._source = None, None, None, None
                self._by_types, self._by_fast_key, self._reads, self._guards = {}, {}, {}, ()
            self._publish()

    def _add_guards(self, reads: Any) -> None:
        for r in reads:
            self._reads[(id(r.namespace), r.name)] = r
        self._guards = tuple((r.namespace, r.name, r.obj, _table_items(r.obj, r.digest)) for r in self._reads.values())

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # behave like a plain function on classes
        return self if obj is None else functools.partial(self, obj)

    def _started(self) -> None:
        """Runs before a build's library is loaded; everypath.CompiledFunction starts telemetry here."""

    # ---- building ------------------------------------------------------
    def build(self, call_types: tuple[Any, ...] | None = None, observe: Callable[[], Any] | None = None) -> Any:
        """Compile now (ahead of time) and return the CompiledModule.

        ``observe`` runs only on a cache miss (it is the sandboxed observation run)."""
        from everypath.lowering.cache import build_cached  # no compiler import on a hit

        return build_cached(self.py_function, self.settings, call_types, observe)

    def _observe(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the Python function once in the sandbox on this call's inputs (see tracer.sandbox)."""
        if not self.options.sandbox:
            return None
        import warnings

        from everypath.tracer.sandbox import SandboxError, observe

        try:
            return observe(self.py_function, args, kwargs)
        except SandboxError as exc:
            warnings.warn(f"everypath: {self.__qualname__}: no sandboxed observation ({exc}); "
                          "compiling from static inference alone", RuntimeWarning, stacklevel=3)
            return None

    def _bind_native(self, module: Any) -> Bound:
        from everypath.lowering import _runtime
        from everypath.lowering.cache import CompiledModule

        assert isinstance(module, CompiledModule)
        sig = dict(module.signature)
        defaults = self.py_function.__defaults__ or ()
        hidden = {r.hidden: r for r in module.globals if r.hidden}  # module arrays: trailing hidden parameters
        names = [p["name"] for p in sig["params"] if p["name"] not in hidden]
        first = len(names) - len(defaults)
        params = []
        for i, p in enumerate(sig["params"]):
            p = {k: v for k, v in p.items() if k != "has_default"}
            if first <= i < len(names):
                p["default"] = defaults[i - first]
            params.append(p)
        sig["params"] = params
        self.settings.apply_openmp_defaults()  # before the first OpenMP code is loaded
        self._started()  # the public face starts telemetry here (once per process)
        lib = _runtime.Library(str(module.so_path))
        self._module = module
        from everypath.lowering.torch_boundary import wrap  # tensors cross as NumPy views

        self._add_guards(module.globals)
        kernel = lib.bind(module.symbol, sig)
        native = wrap(kernel, sig)
        call = with_hidden(native, self.__name__, len(names), hidden) if hidden else native
        order = [p["name"] for p in params]
        trailing = order[len(names):] == [p for p in order if p in hidden]  # C appends them in this order
        if native is not kernel or not trailing:
            return Bound(call)  # the torch boundary's conversions: Python's work
        return Bound(call, kernel, tuple((hidden[p].namespace, hidden[p].name) for p in order[len(names):]))

    def _native_for(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bound:
        with self._lock:
            if self._native is not None:
                return self._native
            if self._open is None:
                try:
                    module = self.build()
                    self._native = self._bind_native(module)
                    self._open = False
                    self._publish()
                    return self._native
                except OpenSignatureError:
                    self._open = True  # specialise per call on the arguments' types instead
            bound = self._bind_call(args, kwargs)
            if "torch" in sys.modules:  # tensors that cannot cross as NumPy views: a TypeError naming the parameter
                from everypath.lowering.torch_boundary import check_arguments

                assert self._signature is not None
                check_arguments(self.__name__, list(self._signature.parameters), bound)
            if "PIL.Image" in sys.modules:  # an image parameter given something else: a TypeError naming it
                from everypath.lowering.pil_boundary import check_arguments as check_images

                check_images(self.__name__, self.py_function, bound)
            fast = tuple(fast_key(v) for v in bound)
            native = self._by_fast_key.get(fast)
            if native is not None:
                return native
            # here, not above: a closed signature's first call leaves the type lattice unloaded
            from everypath.base.annotations import describe_value_type

            key = tuple(describe_value_type(v) for v in bound)
            native = self._by_types.get(key)
            if native is None:
                native = self._bind_native(self.build(key, lambda: self._observe(args, kwargs)))
                self._by_types[key] = native
            self._by_fast_key[fast] = native
            self._publish()
            return native

    def _bind_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if self._signature is None:
            self._signature = inspect.signature(self.py_function)
        ba = self._signature.bind(*args, **kwargs)
        ba.apply_defaults()
        return tuple(ba.arguments.values())

    # ---- inspection ----------------------------------------------------
    @property
    def cpp_source(self) -> str:
        """The generated C++ of the closed signature: the build's when there is one (here or in the cache), else
        generated now without building it (reading the code must not cost a g++ run of seconds)."""
        if self._module is None:
            from everypath.lowering.cache import front_key, load

            hit = load(self.settings, front_key(self.py_function, None, self.settings), self.py_function.__globals__)
            if hit is None:
                from everypath.lowering.pipeline import generate

                if self._source is None:
                    self._source = generate(self.py_function, self.settings).source
                return self._source
            self._module = hit
        return self._module.cpp_path.read_text()

    def ir(self, typed: bool = True) -> str:
        from everypath.lowering.pipeline import ir_text

        return ir_text(self.py_function, typed=typed)

    def __repr__(self) -> str:
        return f"<everypath.CompiledFunction {self.py_function.__module__}.{self.py_function.__qualname__}>"


_enable_vectorcall(CompiledFunction)  # Python 3.11: the vectorcall slot is inherited, the flag is not
