"""Python AST -> IR for one function (and the closures and lambdas inside it).

Desugaring done here, so later stages see few shapes: ``while`` becomes a
``loop`` with a guarded ``break``; ``and``/``or``/conditional expressions and
comparison chains become stores to temporaries under ``if`` (keeping Python's
short-circuit order); comprehensions become loops appending to a list;
``assert`` becomes ``if``/``raise``. Globals are resolved at compile time
(see ``tracer.statics``).
"""
from __future__ import annotations

import ast
import builtins
import enum
import inspect
import operator
import textwrap
import tokenize
import types
from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.base.errors import CompileError, SourceLocation, SourceSyntaxError
from everypath.base.classes import is_enum_class, is_record_class
from everypath.base.const_tables import ConstTable
from everypath.tracer.globals import ABSENT, GlobalRead, GlobalScope, value_digest
from everypath.tracer.ir import Block, Function, FunctionRef, Node, Opcode, Param
from everypath.tracer.statics import (
    EXCEPTION_NAMES, NOT_CONSTANT, Static, const_bindings, is_constant, is_library_module,
    static_for, unwrap_compiled, user_function_ref,
)
from everypath.tracer.opnames import _PY_CMP, BINOPS, CMPOPS, UNARYOPS
from everypath.tracer.classinfo import isinstance_call
from everypath.tracer.class_methods import OBJECT_IDENTITY, BoundClassmethod, class_attribute, classmethod_call
from everypath.tracer.exceptions import ExceptionLowering
from everypath.tracer.generators import GeneratorLowering, target_names
from everypath.tracer.match import MatchLowering, capture_names
from everypath.tracer.pair_dicts import dict_of_pairs
from everypath.tracer.key_functions import as_lambda
from everypath.tracer.statements import StatementLowering
from everypath.tracer.whitelist import check_syntax, is_generator_def

_FOLDABLE_PREFIXES = ("math.",)
# calls whose value is already a bool (for arrays: an array of them), so a test does not wrap them in ep.truth
_BOOL_VALUED = frozenset({*CMPOPS.values(), "operator.not_", "builtins.bool", "ep.truth"})
_FOLDABLE_KEYS = frozenset({"builtins.abs", "builtins.int", "builtins.float", "builtins.bool", "builtins.min", "builtins.max",
                            "builtins.ord", "builtins.chr", "builtins.str", "builtins.repr"})

# called for every user function reached; may answer the ref to use instead (tracer.callgraph caps
# the constant specialisations of one helper)
FunctionSink = Callable[[FunctionRef, types.FunctionType], "FunctionRef | None"]


class SourceMap:
    """Maps positions in a dedented snippet back to the user's file."""

    def __init__(self, filename: str, line_offset: int, col_offset: int) -> None:
        self.filename, self.line_offset, self.col_offset = filename, line_offset, col_offset

    def __call__(self, node: ast.AST) -> SourceLocation:
        return SourceLocation(
            self.filename, getattr(node, "lineno", 1) + self.line_offset, getattr(node, "col_offset", 0) + self.col_offset
        )


def _file_syntax_error(filename: str) -> SourceSyntaxError | None:
    """The file's own syntax error, located, when its source (edited since import) no longer parses."""
    try:
        compile(Path(filename).read_text(), filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return SourceSyntaxError.from_syntax_error(exc, filename)
    except (OSError, ValueError):
        pass
    return None


def parse_function(pyfunc: types.FunctionType) -> tuple[ast.FunctionDef, SourceMap]:
    try:
        lines, first = inspect.getsourcelines(pyfunc)
        filename = inspect.getsourcefile(pyfunc) or pyfunc.__code__.co_filename
    except (OSError, TypeError, SyntaxError, tokenize.TokenError) as exc:
        raise _file_syntax_error(pyfunc.__code__.co_filename) or CompileError(
            f"cannot read the source of {pyfunc.__qualname__}: {exc}", pyfunc.__code__.co_filename,
            pyfunc.__code__.co_firstlineno, 0) from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    smap = SourceMap(filename, first - 1, indent)
    try:
        tree = ast.parse(dedented)
    except SyntaxError as exc:  # the file changed since import, or source given as text: one located line
        raise SourceSyntaxError.from_syntax_error(exc, filename, first - 1, indent) from None
    fdefs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not fdefs:
        raise CompileError(f"{pyfunc.__qualname__} is not a plain 'def' function (lambdas are compiled only inside one)",
                           filename, first, 0)
    return fdefs[0], smap


def _assigned_names(body: list[ast.stmt]) -> tuple[list[str], set[str]]:
    """Names bound in a function body (its locals) in first-binding order, and the names bound by imports."""
    order: dict[str, None] = {}
    imports: set[str] = set()

    def bind_target(t: ast.AST) -> None:
        if isinstance(t, ast.Name):
            order.setdefault(t.id, None)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                bind_target(e)

    def visit(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    bind_target(t)
            elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
                bind_target(s.target)
            elif isinstance(s, ast.For):
                bind_target(s.target)
                visit(s.body)
            elif isinstance(s, (ast.While, ast.If)):
                visit(s.body)
                visit(s.orelse)
            elif isinstance(s, ast.Try):  # tracer/exceptions.py (the `as e` names get locals of their own)
                visit(s.body)
                for h in s.handlers:
                    visit(h.body)
                visit(s.orelse)
                visit(s.finalbody)
            elif isinstance(s, ast.Match):  # tracer/match.py: captures bind locals
                for c in s.cases:
                    for name in capture_names(c.pattern):
                        order.setdefault(name, None)
                    visit(c.body)
            elif isinstance(s, ast.FunctionDef):
                order.setdefault(s.name, None)
            elif isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    imports.add(a.asname or a.name.split(".")[0])

    visit(body)
    return [n for n in order if n not in imports], imports


class FunctionBuilder(GeneratorLowering, ExceptionLowering, MatchLowering, StatementLowering):
    """Builds the IR of one function; a child builder handles each closure."""

    def __init__(
        self,
        name: str,
        qualname: str,
        module: str,
        smap: SourceMap,
        lookup_global: Callable[[str], Any],
        on_function: FunctionSink,
        parent: FunctionBuilder | None = None,
        scope: GlobalScope | None = None,
    ) -> None:
        self.name, self.qualname, self.module, self.smap = name, qualname, module, smap
        self.scope = parent.scope if parent is not None else scope  # where globals are read and recorded
        self.hidden: dict[tuple[int, str], str] = {}  # root only: (namespace id, name) -> hidden parameter
        self.hidden_params: list[tuple[str, Any, SourceLocation]] = []
        self.lookup_global = lookup_global
        self.on_function = on_function
        self.parent = parent
        self.locals: dict[str, SourceLocation] = {}
        self.static_locals: dict[str, Static] = {}
        self.const_params: dict[str, Any] = {}  # parameters bound to a call site's constant (never reassigned)
        self.freevars: dict[str, None] = {}
        self.renames: list[dict[str, str]] = []
        self.counter = 0
        self.test_temps: set[str] = set()  # and/or temporaries holding a condition's truth (`test`)
        self.block = Block()
        self.loop_depth = 0
        self.handler_depth = 0  # except clauses around the statement being traced (a bare raise re-raises)

    # ---- helpers -------------------------------------------------------
    def loc(self, node: ast.AST) -> SourceLocation:
        return self.smap(node)

    def error(self, node: ast.AST, message: str) -> CompileError:
        return CompileError.at(self.loc(node), message, (f"tracing {self.qualname}",))

    def emit(self, op: Opcode, target: Any, args: tuple[Node, ...], loc: SourceLocation,
             kwargs: dict[str, Node] | None = None, blocks: tuple[Block, ...] = ()) -> Node:
        return self.block.append(Node(op, target, args, kwargs or {}, loc, blocks))

    def fresh(self, hint: str) -> str:
        self.counter += 1
        name = f"{hint}${self.counter}"
        self.locals.setdefault(name, SourceLocation(self.smap.filename, 0, 0))
        return name

    def const(self, value: Any, loc: SourceLocation) -> Node:
        return self.emit(Opcode.CONST, value, (), loc)

    def in_block(self, block: Block, fn: Callable[[], None]) -> Block:
        saved, self.block = self.block, block
        try:
            fn()
        finally:
            self.block = saved
        return block

    # ---- entry points --------------------------------------------------
    def build_def(self, fdef: ast.FunctionDef | ast.Lambda, resolve_annotation: Callable[[ast.AST | None, str], Any],
                  defaults: tuple[Any, ...] = (), consts: tuple[tuple[str, Any], ...] = ()) -> Function:
        body = fdef.body if isinstance(fdef, ast.FunctionDef) else [ast.Return(value=fdef.body, lineno=fdef.lineno,
                                                                                col_offset=fdef.col_offset)]
        local_names, _ = _assigned_names(body)
        self.generator = isinstance(fdef, ast.FunctionDef) and is_generator_def(fdef)
        args = fdef.args.args
        bound = dict(consts)
        # a class bound to a parameter (a classmethod's cls: tracer/class_methods.py) names the class: no run-time
        # parameter at all
        classes = {n for n, v in bound.items() if isinstance(v, type) and n not in local_names}
        self.static_locals.update({n: static_for(bound[n]) for n in classes})
        for a in args:
            if a.arg not in classes:
                self.locals[a.arg] = self.loc(a)
        for n in local_names:
            self.locals.setdefault(n, SourceLocation(self.smap.filename, 0, 0))
        self.const_params = {n: v for n, v in bound.items() if n not in local_names and n not in classes}
        params: list[Param] = []
        first_default = len(args) - len(defaults)
        for i, a in enumerate(args):
            if a.arg in classes:
                continue
            default = defaults[i - first_default] if i >= first_default else Param.NO_DEFAULT
            params.append(Param(a.arg, resolve_annotation(a.annotation, a.arg), default, self.loc(a)))
            node = self.emit(Opcode.PARAM, a.arg, (), self.loc(a))
            self.emit(Opcode.STORE, a.arg, (node,), self.loc(a))
        self.statements(body)
        params += self._hidden_params(len(params))
        if not self.block.terminates():
            loc = self.loc(body[-1]) if body else self.loc(fdef)
            self.emit(Opcode.RETURN, None, (self.const(None, loc),), loc)
        returns = resolve_annotation(fdef.returns, "return") if isinstance(fdef, ast.FunctionDef) else None
        return Function(
            name=self.name, qualname=self.qualname, module=self.module, filename=self.smap.filename,
            params=params, returns=returns, body=self.block, loc=self.loc(fdef),
            freevars=tuple(self.freevars), locals=dict(self.locals), is_closure=self.parent is not None,
            consts=consts, is_generator=self.generator,
        )

    # ---- names ---------------------------------------------------------
    def lookup(self, name: str, node: ast.AST) -> Node | Static:
        for scope in reversed(self.renames):
            if name in scope:
                return self.emit(Opcode.LOAD, scope[name], (), self.loc(node))
        if name in self.static_locals:
            return self.static_locals[name]
        if name in self.const_params:
            return self.const(self.const_params[name], self.loc(node))
        if name in self.locals:
            return self.emit(Opcode.LOAD, name, (), self.loc(node))
        outer = self.parent
        while outer is not None:
            if name in outer.static_locals:
                return outer.static_locals[name]
            if name in outer.const_params:
                return self.const(outer.const_params[name], self.loc(node))
            if name in outer.locals or any(name in s.values() for s in outer.renames):
                self.freevars.setdefault(name, None)
                return self.emit(Opcode.LOAD, name, (), self.loc(node))
            outer = outer.parent
        try:
            obj = self.lookup_global(name)
        except KeyError:
            raise self.error(node, f"name '{name}' is not defined") from None
        return self.read_global(name, obj, node)

    def read_global(self, name: str, obj: Any, node: ast.AST, ns: dict[str, Any] | None = None,
                    module: str = "") -> Node | Static:
        """A module global (or a user module's attribute) read: recorded, so that compiled code
        re-binding it is noticed at the next call (tracer.globals); arrays become hidden parameters."""
        scope = self.scope
        if ns is None:
            if scope is None or name in scope.cells:
                return self.static_value(obj, node)
            ns, module = scope.namespace, scope.module
        label = name if ns is (scope.namespace if scope else None) else f"{module}.{name}"
        if isinstance(obj, np.ndarray):
            return self._global_array(label, name, obj, node, ns, module)
        table = ConstTable.of(label, obj)  # a dict/set/list of constants: captured (base/const_tables.py)
        if table is not None:
            if scope is not None:
                scope.reads.append(GlobalRead(module, name, value_digest(obj), ns, obj))
            return self.const(table, self.loc(node))
        if not (is_constant(obj) or callable(obj) or isinstance(obj, (type, types.ModuleType))):
            held = next((type(x).__name__ for x in obj if not is_constant(x)), None) if isinstance(obj, tuple) else None
            what = f"a tuple holding a {held}" if held else f"a {type(obj).__module__.replace('builtins', '')}" \
                f"{'.' if type(obj).__module__ != 'builtins' else ''}{type(obj).__qualname__}"
            raise self.error(node, f"module global '{label}' is {what}: compiled code reads module constants "
                                   "(int, float, bool, complex, str, None and tuples of them), dicts, sets and lists "
                                   "of int, float, bool and str, NumPy arrays, modules and functions only; pass '{name}' to the function as a parameter instead")
        if scope is not None:
            scope.reads.append(GlobalRead(module, name, value_digest(obj if name in ns else ABSENT), ns,
                                          ns.get(name, ABSENT)))
        return self.static_value(obj, node)

    def _global_array(self, label: str, name: str, obj: Any, node: ast.AST, ns: dict[str, Any], module: str) -> Node:
        """A module array reaches the entry as a hidden parameter, read at every call (like CPython,
        in-place changes are seen and compiled writes land in the module's array)."""
        root = self
        while root.parent is not None:
            root = root.parent
        what = f"module array '{label}' ({obj.dtype}, {obj.ndim}-d)"
        if self.scope is None or not self.scope.entry:
            raise self.error(node, f"{what} is read in '{root.qualname}', a helper of the compiled function: only "
                                   "the compiled function itself (and functions nested in it) can read module arrays; "
                                   f"pass '{name}' to '{root.qualname}' as a parameter")
        from everypath.base.annotations import describe_value_type

        if obj.ndim == 0 or describe_value_type(obj) is None:
            raise self.error(node, f"{what}: compiled code cannot read this array; pass '{name}' as a parameter")
        hidden = root.hidden.get((id(ns), name))
        if hidden is None:
            hidden = f"ep_global_{name}"
            while hidden in root.locals:
                hidden += "_"
            root.hidden[(id(ns), name)] = hidden
            root.locals[hidden] = self.loc(node)
            root.hidden_params.append((hidden, obj, self.loc(node)))
        self.scope.reads.append(GlobalRead(module, name, value_digest(obj), ns, obj, hidden))
        if self is not root:
            self.freevars.setdefault(hidden, None)
        return self.emit(Opcode.LOAD, hidden, (), self.loc(node))

    def _hidden_params(self, first: int) -> list[Param]:
        """The module arrays read as trailing parameters, stored on entry like the written ones."""
        from everypath.base.annotations import Annotation

        out = []
        for i, (hidden, arr, loc) in enumerate(self.hidden_params):
            ann = np.ndarray[tuple[(int,) * arr.ndim], np.dtype[arr.dtype.type]]  # type: ignore[misc]
            out.append(Param(hidden, Annotation(ann, f"module array ({arr.dtype}, {arr.ndim}-d)", loc),
                             Param.NO_DEFAULT, loc))
            param = Node(Opcode.PARAM, hidden, (), {}, loc)
            store = Node(Opcode.STORE, hidden, (param,), {}, loc)
            for j, n in enumerate((param, store)):
                n.block = self.block
                self.block.nodes.insert(2 * (first + i) + j, n)
        return out

    def note_call_site(self, ref: FunctionRef, node: ast.AST) -> None:
        """The first place the graph reaches `ref`: its errors in library files are reported there."""
        sites = getattr(self.on_function, "call_sites", None)
        if isinstance(sites, dict):
            sites.setdefault(ref, self.loc(node))

    def static_value(self, obj: Any, node: ast.AST) -> Node | Static:
        obj = unwrap_compiled(obj)
        if is_constant(obj) and not isinstance(obj, type):
            return self.const(obj, self.loc(node))
        st = static_for(obj)
        if isinstance(obj, types.FunctionType) and st.key is None:
            self.on_function(user_function_ref(obj), obj)
            self.note_call_site(user_function_ref(obj), node)
        return st

    def as_node(self, value: Node | Static, node: ast.AST) -> Node:
        if isinstance(value, Node):
            return value
        obj = value.obj
        if isinstance(obj, type) and (issubclass(obj, (bool, int, float, complex)) or obj.__module__ == "numpy"):
            import numpy as np

            try:
                return self.const(np.dtype(obj), self.loc(node))
            except TypeError:
                pass
        if isinstance(obj, types.FunctionType) and value.key is None:
            return self.const(user_function_ref(obj), self.loc(node))
        raise self.error(node, f"{value.describe()} cannot be used as a value here")

    # ---- expressions ---------------------------------------------------
    def expr(self, e: ast.expr) -> Node | Static:
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.error(e, f"expression '{type(e).__name__}' is not supported here")
        return method(e)

    def value(self, e: ast.expr) -> Node:
        return self.as_node(self.expr(e), e)

    def expr_Constant(self, e: ast.Constant) -> Node:
        if e.value is Ellipsis or isinstance(e.value, bytes):
            where = " outside an index (a[..., 0])" if e.value is Ellipsis else ""
            raise self.error(e, f"constant {e.value!r} is not supported{where}")
        return self.const(e.value, self.loc(e))

    def expr_Name(self, e: ast.Name) -> Node | Static:
        return self.lookup(e.id, e)

    def expr_Attribute(self, e: ast.Attribute) -> Node | Static:
        base = self.expr(e.value)
        if isinstance(base, Static):
            if is_enum_class(base.obj) and e.attr in base.obj.__members__:  # Color.RED: a constant
                return self.const(base.obj.__members__[e.attr], self.loc(e))
            if is_record_class(base.obj) and e.attr in vars(base.obj):  # Box.SCALE, Box.make: tracer/class_methods.py
                return class_attribute(self, base.obj, e)
            if not isinstance(base.obj, types.ModuleType):
                raise self.error(e, f"attribute '{e.attr}' of {base.describe()} is not supported")
            if not hasattr(base.obj, e.attr):
                raise self.error(e, f"module '{base.obj.__name__}' has no attribute '{e.attr}'")
            if not is_library_module(base.obj):  # a user's module: its attributes are globals too
                return self.read_global(e.attr, getattr(base.obj, e.attr), e, vars(base.obj), base.obj.__name__)
            return self.static_value(getattr(base.obj, e.attr), e)
        return self.emit(Opcode.GETATTR, e.attr, (base,), self.loc(e))

    def expr_Tuple(self, e: ast.Tuple) -> Node:
        items = tuple(self.value(x) for x in e.elts)
        if all(i.op is Opcode.CONST for i in items):
            return self.const(tuple(i.target for i in items), self.loc(e))
        return self.emit(Opcode.CALL, "ep.tuple", items, self.loc(e))

    def expr_List(self, e: ast.List) -> Node:
        return self.emit(Opcode.CALL, "ep.list", tuple(self.value(x) for x in e.elts), self.loc(e))

    def expr_Dict(self, e: ast.Dict) -> Node:  # {k: v, ...}: keys and values interleaved
        items = tuple(x for k, v in zip(e.keys, e.values) for x in (self.value(k), self.value(v)))  # type: ignore[arg-type]
        return self.emit(Opcode.CALL, "ep.dict", items, self.loc(e))

    def expr_Set(self, e: ast.Set) -> Node:
        return self.emit(Opcode.CALL, "ep.set", tuple(self.value(x) for x in e.elts), self.loc(e))

    def expr_Slice(self, e: ast.Slice) -> Node:
        loc = self.loc(e)
        parts = tuple(self.value(x) if x is not None else self.const(None, loc) for x in (e.lower, e.upper, e.step))
        return self.emit(Opcode.CALL, "builtins.slice", parts, loc)

    def expr_Subscript(self, e: ast.Subscript) -> Node:
        base = self.expr(e.value)
        if isinstance(base, Static):
            raise self.error(e, f"subscripting {base.describe()} is only allowed in annotations")
        return self.emit(Opcode.GETITEM, None, (base, self.index(e.slice)), self.loc(e))

    def index(self, s: ast.expr) -> Node:
        if isinstance(s, ast.Tuple):
            items = tuple(self.index_item(x) for x in s.elts)
            return self.emit(Opcode.CALL, "ep.tuple", items, self.loc(s))
        return self.index_item(s)

    def index_item(self, x: ast.expr) -> Node:
        """One item of a subscript: `...` is a constant only here (lowering/indexing.py expands it)."""
        if isinstance(x, ast.Constant) and x.value is Ellipsis:
            return self.const(Ellipsis, self.loc(x))
        return self.value(x)

    def fold(self, fn: Callable[..., Any], args: list[Node], loc: SourceLocation) -> Node | None:
        if all(a.op is Opcode.CONST for a in args):
            try:
                value = fn(*(a.target for a in args))
            except Exception:  # leave it to run time, which raises the same error in order
                return None
            if is_constant(value):
                for a in args:
                    if not a.users and a.block is self.block and a in self.block.nodes:
                        self.block.nodes.remove(a)
                return self.const(value, loc)
        return None

    def expr_BinOp(self, e: ast.BinOp) -> Node:
        left, right = self.value(e.left), self.value(e.right)
        key = BINOPS[type(e.op)]
        folded = self.fold(getattr(operator, key.split(".")[1]), [left, right], self.loc(e))
        return folded or self.emit(Opcode.CALL, key, (left, right), self.loc(e))

    def expr_UnaryOp(self, e: ast.UnaryOp) -> Node:
        operand = self.value(e.operand)
        key = UNARYOPS[type(e.op)]
        folded = self.fold(getattr(operator, key.split(".")[1]), [operand], self.loc(e))
        return folded or self.emit(Opcode.CALL, key, (operand,), self.loc(e))

    def _cond_store(self, tmp: str, cond: Node, loc: SourceLocation, then: Callable[[], None] | None,
                    orelse: Callable[[], None] | None) -> None:
        b_then, b_else = Block(), Block()
        if then:
            self.in_block(b_then, then)
        if orelse:
            self.in_block(b_else, orelse)
        self.emit(Opcode.IF, None, (cond,), loc, blocks=(b_then, b_else))

    def test(self, e: ast.expr) -> Node:
        """A condition (if, while, assert, a conditional expression's or a comprehension's filter): only its
        truth matters, so `name and name not in d` stores each operand's truth (ep.truth), not an operand."""
        if isinstance(e, ast.BoolOp):
            return self.expr_BoolOp(e, as_test=True)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            operand = self.test(e.operand)
            folded = self.fold(operator.not_, [operand], self.loc(e))
            return folded or self.emit(Opcode.CALL, "operator.not_", (operand,), self.loc(e))
        return self.value(e)

    def _truth(self, e: ast.expr) -> Node:
        n = self.test(e)
        if n.op is Opcode.CONST or (n.op is Opcode.CALL and n.target in _BOOL_VALUED):
            return n
        if n.op is Opcode.LOAD and n.target in self.test_temps:  # a nested and/or test
            return n
        return self.emit(Opcode.CALL, "ep.truth", (n,), n.loc)

    def expr_BoolOp(self, e: ast.BoolOp, as_test: bool = False) -> Node:
        loc = self.loc(e)
        tmp = self.fresh("bool")  # one name either way: the IR and C++ of numeric kernels stay as they were
        if as_test:
            self.test_temps.add(tmp)
        first = self._truth(e.values[0]) if as_test else self.value(e.values[0])
        self.emit(Opcode.STORE, tmp, (first,), loc)

        def chain(rest: list[ast.expr]) -> None:
            if not rest:
                return
            cur = self.emit(Opcode.LOAD, tmp, (), loc)

            def assign_next() -> None:
                self.emit(Opcode.STORE, tmp, (self._truth(rest[0]) if as_test else self.value(rest[0]),), loc)
                chain(rest[1:])

            if isinstance(e.op, ast.And):
                self._cond_store(tmp, cur, loc, assign_next, None)
            else:
                self._cond_store(tmp, cur, loc, None, assign_next)

        chain(e.values[1:])
        return self.emit(Opcode.LOAD, tmp, (), loc)

    def expr_IfExp(self, e: ast.IfExp) -> Node:
        loc = self.loc(e)
        tmp = self.fresh("ifexp")
        cond = self.test(e.test)
        self._cond_store(tmp, cond, loc, lambda: self.emit(Opcode.STORE, tmp, (self.value(e.body),), loc),
                         lambda: self.emit(Opcode.STORE, tmp, (self.value(e.orelse),), loc))
        return self.emit(Opcode.LOAD, tmp, (), loc)

    def _compare(self, key: str, left: Node, right: Node, loc: SourceLocation) -> Node:
        if key in ("operator.contains", "operator.not_contains"):
            left, right = right, left
        if key in ("operator.is_", "operator.is_not") and not any(
            x.op is Opcode.CONST and (x.target is None or isinstance(x.target, enum.Enum)) for x in (left, right)
        ):
            # two objects' identity: the typer allows it for instances of the user's classes (lowering/classes.py)
            return self.emit(Opcode.CALL, OBJECT_IDENTITY[key], (left, right), loc)
        folded = self.fold(lambda a, b: _PY_CMP[key](a, b), [left, right], loc) if key in _PY_CMP else None
        return folded or self.emit(Opcode.CALL, key, (left, right), loc)

    def expr_Compare(self, e: ast.Compare) -> Node:
        loc = self.loc(e)
        left = self.value(e.left)
        right = self.value(e.comparators[0])
        first = self._compare(CMPOPS[type(e.ops[0])], left, right, loc)
        if len(e.ops) == 1:
            return first
        tmp = self.fresh("cmp")
        self.emit(Opcode.STORE, tmp, (first,), loc)
        prev = right
        pairs = list(zip(e.ops[1:], e.comparators[1:]))

        def step(i: int, prev: Node) -> None:
            if i == len(pairs):
                return
            op, comp = pairs[i]
            cur = self.emit(Opcode.LOAD, tmp, (), loc)

            def then() -> None:
                nxt = self.value(comp)
                self.emit(Opcode.STORE, tmp, (self._compare(CMPOPS[type(op)], prev, nxt, loc),), loc)
                step(i + 1, nxt)

            self._cond_store(tmp, cur, loc, then, None)

        step(0, prev)
        return self.emit(Opcode.LOAD, tmp, (), loc)

    def expr_Call(self, e: ast.Call) -> Node:
        loc = self.loc(e)
        if isinstance(e.func, ast.Attribute):
            base = self.expr(e.func.value)
            if isinstance(base, Node):
                args = (base, *(self.value(a) for a in e.args))
                return self.emit(Opcode.CALL, f"method.{e.func.attr}", args, loc, self.keywords(e))
        callee = self.expr(e.func)
        if isinstance(callee, Static) and callee.key == "builtins.isinstance":  # classes by name: tracer/classinfo.py
            return isinstance_call(self, e)
        if (isinstance(callee, Static) and callee.key == "builtins.sum" and not e.keywords
                and len(e.args) in (1, 2) and isinstance(e.args[0], ast.GeneratorExp)):
            start = self.value(e.args[1]) if len(e.args) == 2 else self.const(0, loc)
            return self.comprehension(e.args[0], accumulate=start)
        consumed = self.consume_iterable(callee, e)  # any/all/max/min/list of a generator: tracer/generators.py
        if consumed is not None:
            return consumed
        pairs = dict_of_pairs(self, callee, e)  # dict(zip(k, v)), dict(enumerate(x)): tracer/pair_dicts.py
        if pairs is not None:
            return pairs
        np_call = isinstance(callee, Static) and (callee.key or "").startswith("numpy.")
        args_n = [self.numpy_arg(a) if np_call else self.value(a) for a in e.args]
        kwargs = self.keywords(e)
        if isinstance(callee, Node):
            return self.emit(Opcode.CALL, "ep.call", (callee, *args_n), loc, kwargs)
        obj, key = callee.obj, callee.key
        if key is not None and key.startswith("builtins.") and key.split(".")[1] in EXCEPTION_NAMES:
            raise self.error(e, f"exception {key.split('.')[1]} can only be created in a raise statement")
        if isinstance(obj, BoundClassmethod):  # Box.from_xywh(...), cls.make(...): tracer/class_methods.py
            return classmethod_call(self, obj, args_n, kwargs, e)
        if isinstance(obj, types.FunctionType) and key is None:
            consts = const_bindings(obj, [a.target if a.op is Opcode.CONST else NOT_CONSTANT for a in args_n],
                                    {k: v.target if v.op is Opcode.CONST else NOT_CONSTANT for k, v in kwargs.items()})
            wanted = user_function_ref(obj, consts)
            ref = (self.on_function(wanted, obj) or wanted) if consts else wanted
            self.note_call_site(ref, e)
            return self.emit(Opcode.CALL, ref, tuple(args_n), loc, kwargs)
        if key is None and is_record_class(obj):  # a dataclass / NamedTuple of the user's: lowering/records.py
            return self.emit(Opcode.CALL, f"ep.record:{obj.__module__}:{obj.__qualname__}", tuple(args_n), loc, kwargs)
        if key is None:
            raise self.error(e.func, f"calling {callee.describe()} is not supported")
        if not kwargs and (key.startswith(_FOLDABLE_PREFIXES) or key in _FOLDABLE_KEYS):
            folded = self.fold(obj, args_n, loc)
            if folded is not None:
                return folded
        return self.emit(Opcode.CALL, key, tuple(args_n), loc, kwargs)

    def numpy_arg(self, a: ast.expr) -> Node:
        """A list display given to a NumPy function: nested displays (``[[0, 1], [1, 0]]``) become
        nested tuples (a fixed shape NumPy builds the same array from), and in a mixed one
        (``[a, [0]]``) each inner list display is np.asarray'd first, as NumPy converts it."""
        if not isinstance(a, ast.List) or not any(isinstance(x, ast.List) for x in a.elts):
            return self.value(a)
        if all(isinstance(x, (ast.List, ast.Tuple)) for x in a.elts):
            return self.nested_tuple(a)
        loc = self.loc(a)
        items = tuple(self.emit(Opcode.CALL, "numpy.asarray", (self.nested_tuple(x),), self.loc(x))
                      if isinstance(x, ast.List) else self.value(x) for x in a.elts)
        return self.emit(Opcode.CALL, "ep.tuple", items, loc)

    def nested_tuple(self, e: ast.expr) -> Node:
        if not isinstance(e, (ast.List, ast.Tuple)):
            return self.value(e)
        items = tuple(self.nested_tuple(x) for x in e.elts)
        if all(i.op is Opcode.CONST for i in items):
            return self.const(tuple(i.target for i in items), self.loc(e))
        return self.emit(Opcode.CALL, "ep.tuple", items, self.loc(e))

    def keywords(self, e: ast.Call) -> dict[str, Node]:
        out: dict[str, Node] = {}
        for kw in e.keywords:
            if kw.arg is None:
                raise self.error(kw, "**kwargs in calls is not supported")
            out[kw.arg] = self.value(as_lambda(e, kw))  # key=len, key=d.get: a lambda (tracer/key_functions.py)
        return out

    def expr_Lambda(self, e: ast.Lambda) -> Node:
        child = FunctionBuilder("<lambda>", f"{self.qualname}.<lambda>", self.module, self.smap, self.lookup_global,
                                self.on_function, parent=self)
        defaults = tuple(self._default_value(d) for d in e.args.defaults)
        fn = child.build_def(e, lambda _a, _n: None, defaults)
        self._propagate_freevars(fn)
        return self.emit(Opcode.CLOSURE, fn, (), self.loc(e))

    def _default_value(self, d: ast.expr) -> Any:
        v = self.value(d)
        if v.op is not Opcode.CONST:
            raise self.error(d, "default values of nested functions must be constants")
        return v.target

    def _propagate_freevars(self, fn: Function) -> None:
        for name in fn.freevars:  # a grandchild's free variable may be ours too
            if name not in self.locals and not any(name in s.values() for s in self.renames):
                self.freevars.setdefault(name, None)

    def comprehension(self, e: ast.ListComp | ast.GeneratorExp | ast.DictComp | ast.SetComp,
                      accumulate: Node | None = None) -> Node:
        """A list built by loops; with ``accumulate`` (the start value) a running sum instead,
        so ``sum(x * x for x in a)`` never materialises the list (same order: start + e0 + e1 ...)."""
        loc = self.loc(e)
        out = self.fresh("comp" if accumulate is None else "sum")
        empty = "ep.dict" if isinstance(e, ast.DictComp) else "ep.set" if isinstance(e, ast.SetComp) else "ep.list"
        init = accumulate if accumulate is not None else self.emit(Opcode.CALL, empty, (), loc)
        self.emit(Opcode.STORE, out, (init,), loc)
        scope: dict[str, str] = {}

        def gen(i: int) -> None:
            if i == len(e.generators):
                acc = self.emit(Opcode.LOAD, out, (), loc)
                if isinstance(e, ast.DictComp):  # key first, then value (CPython 3.8+)
                    key = self.value(e.key)
                    self.emit(Opcode.SETITEM, None, (acc, key, self.value(e.value)), loc)
                elif accumulate is None:
                    method = "method.add" if isinstance(e, ast.SetComp) else "method.append"
                    self.emit(Opcode.CALL, method, (acc, self.value(e.elt)), loc)
                else:
                    total = self.emit(Opcode.CALL, "operator.add", (acc, self.value(e.elt)), loc)
                    self.emit(Opcode.STORE, out, (total,), loc)
                return
            g = e.generators[i]
            iterable = self.value(g.iter)  # evaluated in the enclosing scope of this generator
            for name in target_names(g.target):
                scope[name] = self.fresh(name)
            pattern = self.pattern(g.target)

            def body() -> None:
                def guarded(conds: list[ast.expr]) -> None:
                    if not conds:
                        gen(i + 1)
                        return
                    c = self.test(conds[0])
                    b = Block()
                    self.in_block(b, lambda: guarded(conds[1:]))
                    self.emit(Opcode.IF, None, (c,), self.loc(conds[0]), blocks=(b, Block()))

                guarded(list(g.ifs))

            self.renames.append(scope)
            try:
                self.loop_depth += 1
                b = self.in_block(Block(), body)
                self.loop_depth -= 1
            finally:
                self.renames.pop()
            self.emit(Opcode.FOR, pattern, (iterable,), self.loc(g.target), blocks=(b,))

        self.renames.append(scope)
        try:
            gen(0)
        finally:
            self.renames.pop()
        return self.emit(Opcode.LOAD, out, (), loc)

    expr_ListComp = comprehension
    expr_DictComp = comprehension
    expr_SetComp = comprehension
    expr_GeneratorExp = comprehension

    def expr_JoinedStr(self, e: ast.JoinedStr) -> Node:
        parts: list[Node] = []
        for v in e.values:
            if isinstance(v, ast.Constant):
                parts.append(self.const(str(v.value), self.loc(v)))
            else:
                assert isinstance(v, ast.FormattedValue)
                if v.conversion not in (-1, ord("r"), ord("s")):
                    raise self.error(v, "the !a conversion in f-strings is not supported")
                spec = v.format_spec
                if spec is not None and not all(isinstance(x, ast.Constant) for x in spec.values):  # type: ignore[attr-defined]
                    raise self.error(spec, "format specs computed at run time (f\"{x:{w}}\") are not supported; "
                                           "write the spec out")
                part = self.value(v.value)
                if v.conversion in (ord("r"), ord("s")):  # f"{x!r}": repr(x) / str(x) before format(..., '')
                    part = self.emit(Opcode.CALL, f"ep.{chr(v.conversion)}conv", (part,), self.loc(v))
                if spec is not None:  # format(part, spec): lowering/strformat.py checks and writes it
                    text = "".join(str(x.value) for x in spec.values)  # type: ignore[attr-defined]
                    part = self.emit(Opcode.CALL, "ep.fspec", (part, self.const(text, self.loc(spec))), self.loc(v))
                parts.append(part)
        return self.emit(Opcode.CALL, "ep.format", tuple(parts), self.loc(e))

    def pattern(self, t: ast.expr) -> str | tuple:
        if isinstance(t, ast.Name):
            for scope in reversed(self.renames):
                if t.id in scope:
                    return scope[t.id]
            return t.id
        if isinstance(t, (ast.Tuple, ast.List)):
            return tuple(self.pattern(x) for x in t.elts)
        raise self.error(t, "only names and tuples of names can be loop targets")



def make_global_lookup(pyfunc: types.FunctionType) -> Callable[[str], Any]:
    """Closure cells, then module globals, then builtins: how Python itself resolves free names."""
    cells: dict[str, Any] = {}
    if pyfunc.__closure__:
        for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
            try:
                cells[name] = cell.cell_contents
            except ValueError:
                pass
    g = pyfunc.__globals__

    def lookup(name: str) -> Any:
        if name in cells:
            return cells[name]
        if name in g:
            return g[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise KeyError(name)

    return lookup


def trace_function(pyfunc: types.FunctionType, on_function: FunctionSink,
                   resolve_annotation: Callable[..., Any], consts: tuple[tuple[str, Any], ...] = (),
                   reads: list[GlobalRead] | None = None, entry: bool = False) -> Function:
    """Trace one Python function (not its callees) to IR; the module globals it reads are appended
    to ``reads``; only the ``entry`` function may read module arrays (as hidden parameters)."""
    fdef, smap = parse_function(pyfunc)
    check_syntax(fdef, smap)
    lookup = make_global_lookup(pyfunc)
    cells = frozenset(pyfunc.__code__.co_freevars) if pyfunc.__closure__ else frozenset()
    scope = GlobalScope(pyfunc.__globals__, str(pyfunc.__globals__.get("__name__", pyfunc.__module__)), cells,
                        reads if reads is not None else [], entry)
    builder = FunctionBuilder(fdef.name, pyfunc.__qualname__, pyfunc.__module__ or "__main__", smap, lookup, on_function,
                              scope=scope)
    defaults = tuple(pyfunc.__defaults__ or ())
    evaluated = getattr(pyfunc, "__annotations__", {}) or {}

    def resolve(node: ast.AST | None, name: str) -> Any:
        # Python already evaluated annotations in the defining scope (which may be
        # a function's locals we cannot see); reuse those objects, keeping our
        # own location and text. String annotations are evaluated here.
        if node is None and name in evaluated:  # annotations set programmatically (fn.__annotations__ = ...)
            from everypath.base.annotations import Annotation

            obj = evaluated[name]
            text = obj if isinstance(obj, str) else getattr(obj, "__name__", None) or repr(obj)
            return Annotation(obj, str(text).replace("numpy.", "np."), smap(fdef))
        return resolve_annotation(node, lookup, smap, evaluated.get(name))

    fn = builder.build_def(fdef, resolve, defaults, consts)
    from everypath.tracer.passes import run_pipeline

    run_pipeline(fn)
    return fn


