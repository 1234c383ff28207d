"""Static types of expressions, and the type errors found on the way (E301-E303, E307, E309, E102).

`infer_type(expr, env)` is public so the compiler and the explain command can
ask what a name means. A bare check name has type `CHECK`; it stands for
`.passed` where a condition is wanted and for `.score` where a number is
(`is_condition` / `is_number` accept it), so `completion >= 0.8` and
`intent and fast` both type-check without field names.
"""

from __future__ import annotations

from typing import Any

from evaldsl.checker.facts.consts import number_of
from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.checker.facts.symbols import CASE
from evaldsl.diagnostics import Diagnostic, error, listing, meant, similar
from evaldsl.i18n import N_, _
from evaldsl.primitives.registry import Registry, default_registry
from evaldsl.primitives.valuetypes import ValueType as T
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span

AGGREGATES: dict[str, tuple[T, ...]] = {
    "rate": (T.BOOL,),
    "count": (T.BOOL,),
    "mean": (T.NUMBER,),
    "sum": (T.NUMBER,),
    "min": (T.NUMBER,),
    "max": (T.NUMBER,),
    "percentile": (T.NUMBER, T.NUMBER),
    "pass_hat": (T.BOOL, T.NUMBER),
    "pass_at": (T.BOOL, T.NUMBER),
}
"""Aggregate functions over cases and the types of their arguments."""

FUNCTIONS: dict[str, tuple[T, ...]] = {
    "number": (T.BOOL,),
}
"""Per-case functions and the types of their arguments: `number(c)` is 1 where the
condition holds, 0 where it does not, and an error where it is one."""

_CONDITIONS = frozenset({T.BOOL, T.CHECK, T.ANY})
_NUMBERS = frozenset({T.NUMBER, T.CHECK, T.ANY})
_CONTAINERS = frozenset({T.LIST, T.MAP, T.TEXT, T.ANY})
_CLASSES: dict[T, frozenset[str]] = {
    T.BOOL: frozenset({"bool"}),
    T.NUMBER: frozenset({"number"}),
    T.CHECK: frozenset({"bool", "number"}),
    T.TEXT: frozenset({"text"}),
    T.LIST: frozenset({"list"}),
    T.MAP: frozenset({"map"}),
    T.TABLE: frozenset({"table"}),
    T.SCOPE: frozenset({"scope"}),
}


def is_condition(t: T) -> bool:
    return t in _CONDITIONS


def is_number(t: T) -> bool:
    return t in _NUMBERS

SIDE_WORDS = {"left": N_("left"), "right": N_("right")}
"""The side of a binary operator, in words for messages."""


class TypeEnv:
    """What names mean, for type inference; built from a checker `Context`."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @classmethod
    def of(cls, module: n.Module, source: Source, registry: Registry | None = None) -> TypeEnv:
        """The environment of a parsed spec (the standard library by default)."""
        return cls(Context(module, source, registry or default_registry()))

    def let_type(self, name: str) -> T:
        lets = self.ctx.symbols.lets
        return self.ctx.let_types.get(name, lambda let: Typer(self, None).infer(lets[let].value),
                                      T.ANY)


def type_env(ctx: Context) -> TypeEnv:
    """The module's type environment (its facts live on `ctx`, so each is computed once)."""
    return TypeEnv(ctx)


def infer_type(expr: n.Expr, env: TypeEnv) -> T:
    """The static type of `expr`; `ANY` where it cannot be known (an unknown name)."""
    return Typer(env, None).infer(expr)


def condition_hint(found: T) -> str:
    """How to turn a value of type `found` into a condition."""
    if found is T.NUMBER:
        return _("compare it with a threshold, e.g. `>= 0.8`")
    if found is T.TEXT:
        return _('compare it with a value, e.g. `== "yes"`')
    return _("write a comparison or a check name")


class Typer:
    """One bottom-up pass over an expression; reports into `sink` when given one.

    Every type it finds is kept in `ctx.expr_types`, so the runtime reads the
    checker's types instead of inferring its own.
    """

    def __init__(self, env: TypeEnv, sink: list[Diagnostic] | None) -> None:
        self.env = env
        self.ctx = env.ctx
        self.sink = sink

    def report(self, code: str, message: str, span: Span, hint: str = "",
               suggestion: str = "") -> None:
        if self.sink is not None:
            self.sink.append(error(code, message, span, hint, suggestion))

    def infer(self, e: n.Expr) -> T:
        method = _METHODS.get(type(e))
        found: T = method(self, e) if method is not None else T.ANY
        self.ctx.expr_types[id(e)] = found
        return found

    def number(self, e: Any) -> T:
        return T.NUMBER

    def string(self, e: n.String) -> T:
        return T.TEXT

    def boolean(self, e: n.Bool) -> T:
        return T.BOOL

    def group(self, e: n.Group) -> T:
        return self.infer(e.expr)

    def name(self, e: n.Name) -> T:
        symbols = self.ctx.symbols
        kind = symbols.kind_of(e.name)
        if kind == "check":
            return T.CHECK
        if kind == "let":
            return self.env.let_type(e.name)
        if kind == "table":
            return T.TABLE
        if kind == "label":
            return T.BOOL
        if kind == "outcome":
            return T.TEXT
        return T.MAP if e.name == CASE else T.ANY

    def attribute(self, e: n.Attribute) -> T:
        obj = e.obj
        if isinstance(obj, n.Name) and obj.name == CASE and self.ctx.symbols.kind_of(CASE) is None:
            types = self.ctx.case_types
            return types.get(e.name, T.ANY) if types is not None else T.ANY
        if isinstance(obj, n.Name) and obj.name in self.ctx.symbols.checks:
            return self.check_field(obj.name, e)
        found = self.infer(obj)
        if found in (T.NUMBER, T.BOOL, T.TEXT, T.TABLE):
            self.report(
                "E309",
                _("{found} has no fields, so it has no `.{name}`").format(found=found, name=e.name),
                e.name_span,
                _("remove the field, or read it from a check or a map"),
            )
        return T.ANY

    def check_field(self, check: str, e: n.Attribute) -> T:
        primitive = self.ctx.primitive_named(check)
        if primitive is None:
            return T.ANY
        fields = primitive.result_fields()
        if e.name in fields:
            return fields[e.name]
        close = similar(e.name, fields)
        known = _("`{name}` results have {names}").format(
            name=primitive.name, names=listing(fields)
        )
        self.report(
            "E102",
            _("the check `{check}` has no field `{name}`").format(check=check, name=e.name),
            e.name_span,
            f"{meant(close)} {known}" if close else known,
            close or "",
        )
        return T.ANY

    def index(self, e: n.Index) -> T:
        found = self.infer(e.obj)
        self.infer(e.index)
        if found in (T.NUMBER, T.BOOL, T.CHECK, T.TABLE):
            self.report(
                "E309",
                _("cannot index into {found}").format(found=found),
                e.span,
                _("only lists, maps and texts can be indexed with `[...]`"),
            )
        return T.ANY

    def unary(self, e: n.Unary) -> T:
        found = self.infer(e.operand)
        if e.op == "not":
            if not is_condition(found):
                self.report(
                    "E302",
                    _("`not` needs a condition, found {found}").format(found=found),
                    e.operand.span,
                    condition_hint(found),
                )
            return T.BOOL
        if not is_number(found):
            self.report(
                "E303", _("`-` needs a number, found {found}").format(found=found), e.operand.span
            )
        return T.NUMBER

    def binary(self, e: n.Binary) -> T:
        left = self.infer(e.left)
        right = self.infer(e.right)
        op = e.op
        if op in n.LOGIC_OPS:
            self.logic(e, left, right)
            return T.BOOL
        if op in n.COMPARE_OPS:
            self.compare(e, left, right)
            return T.BOOL
        if op in n.MEMBER_OPS:
            if right not in _CONTAINERS:
                self.report(
                    "E309",
                    _("`{op}` needs a list, map or text on its right, found {right}").format(
                        op=op, right=right
                    ),
                    e.right.span,
                    _('write the choices as a list: `["a", "b"]`'),
                )
            return T.BOOL
        for side, found in (("left", left), ("right", right)):
            if not is_number(found):
                operand = e.left if side == "left" else e.right
                self.report(
                    "E303",
                    _("`{op}` needs numbers, found {found} on its {side}").format(
                        op=op, found=found, side=_(SIDE_WORDS[side])
                    ),
                    operand.span,
                    _arith_hint(found, operand),
                )
        return T.NUMBER

    def logic(self, e: n.Binary, left: T, right: T) -> None:
        for side, found, operand in (("left", left, e.left), ("right", right, e.right)):
            if not is_condition(found):
                self.report(
                    "E302",
                    _("`{op}` needs conditions, found {found} on its {side}").format(
                        op=e.op, found=found, side=_(SIDE_WORDS[side])
                    ),
                    operand.span,
                    condition_hint(found),
                )

    def compare(self, e: n.Binary, left: T, right: T) -> None:
        ordering = e.op not in ("==", "!=")
        if ordering and not (_both(left, right, _NUMBERS) or _both(left, right, {T.TEXT, T.ANY})):
            odd = left if not is_number(left) else right
            self.report(
                "E301",
                _("`{op}` orders numbers, but one side is {odd}").format(op=e.op, odd=odd),
                e.span,
                self.compare_hint(e, left, right),
            )
            return
        a, b = _CLASSES.get(left), _CLASSES.get(right)
        if a is not None and b is not None and not a & b:
            self.report(
                "E301",
                _("cannot compare {left} with {right}").format(left=left, right=right),
                e.span,
                self.compare_hint(e, left, right),
            )

    def compare_hint(self, e: n.Binary, left: T, right: T) -> str:
        side = e.left if left is T.CHECK else e.right if right is T.CHECK else None
        if isinstance(side, n.Name) and T.TEXT in (left, right):
            return _("to compare the label a check gave, write `{name}.label`").format(
                name=side.name
            )
        for operand in (e.left, e.right):
            declared = self.declared_field(operand)
            if declared is not None:
                return _(
                    "`case.{name}` is declared `{type}` in the `case` block; "
                    "change its type or what it is compared with"
                ).format(name=declared.name, type=declared.type)
        return _("compare values of the same kind: numbers with numbers, texts with texts")

    def declared_field(self, e: n.Expr) -> n.CaseField | None:
        if isinstance(e, n.Attribute) and _is_case_field(e):
            return self.ctx.symbols.case_fields.get(e.name)
        return None

    def call(self, e: n.Call) -> T:
        if e.func in FUNCTIONS:
            return self.number_of_condition(e)
        wanted = AGGREGATES.get(e.func)
        if wanted is None:
            for arg in [*e.args, *(k.value for k in e.kwargs)]:
                self.infer(arg)
            return T.ANY
        given = list(e.args)
        extra = [k for k in e.kwargs if not (e.func == "percentile" and k.name == "p")]
        given += [k.value for k in e.kwargs if k not in extra]
        if extra:
            self.report(
                "E307",
                _("`{func}` has no argument `{name}`").format(func=e.func, name=extra[0].name),
                extra[0].span,
                _("write `{func}({signature})`").format(func=e.func, signature=_signature(e.func)),
            )
        elif len(given) != len(wanted):
            self.report(
                "E307",
                _("`{func}` takes {count}, found {count2}").format(
                    func=e.func, count=_count(len(wanted)), count2=len(given)
                ),
                e.span,
                _("write `{func}({signature})`").format(func=e.func, signature=_signature(e.func)),
            )
        else:
            for arg, want in zip(given, wanted, strict=True):
                self.aggregate_arg(e.func, arg, self.infer(arg), want)
            if e.func == "percentile":
                self.percentile_rank(given[1])
            elif e.func in ("pass_hat", "pass_at"):
                self.trials_k(e.func, given[1])
        return T.NUMBER

    def number_of_condition(self, e: n.Call) -> T:
        """`number(c)`: one condition, positional."""
        hint = _("write `number(condition)`, e.g. `number(polite) + number(fast)`")
        if e.kwargs:
            self.report("E307", _("`{func}` has no argument `{name}`").format(
                func=e.func, name=e.kwargs[0].name), e.kwargs[0].span, hint)
            return T.NUMBER
        if len(e.args) != 1:
            self.report("E307", _("`{func}` takes {count}, found {count2}").format(
                func=e.func, count=_count(1), count2=len(e.args)), e.span, hint)
            return T.NUMBER
        found = self.infer(e.args[0])
        if not is_condition(found):
            self.report(
                "E307",
                _("`number` turns a condition into 1 or 0; found {found}").format(found=found),
                e.args[0].span,
                _("compare it first, e.g. `number(score >= 0.8)`") if found is T.NUMBER
                else condition_hint(found),
            )
        return T.NUMBER

    def trials_k(self, func: str, rank: n.Expr) -> None:
        value = number_of(rank, self.ctx)
        if value is None or value < 1 or not float(value).is_integer():
            self.report(
                "E307",
                _("`{func}` needs k, a constant whole number of trials of at least 1").format(
                    func=func),
                rank.span,
                _("write e.g. `{func}(success, 4)`: all 4 of a scenario's trials").format(
                    func=func),
            )

    def percentile_rank(self, rank: n.Expr) -> None:
        value = number_of(rank, self.ctx)
        scale = 1.0 if isinstance(unwrap(rank), n.Percent) else 100.0
        if value is None or not 0 <= value <= scale:
            self.report(
                "E307",
                _("the percentile must be a constant between 0 and 100"),
                rank.span,
                _("write e.g. `percentile(latency.value, 90)` for the 90th"),
            )

    def aggregate_arg(self, func: str, arg: n.Expr, found: T, want: T) -> None:
        if want is T.BOOL and not is_condition(found):
            hint = (
                _("`mean(...)` averages numbers; `rate(x >= 0.8)` counts cases over a threshold")
                if found is T.NUMBER
                else condition_hint(found)
            )
            self.report(
                "E307",
                _("`{func}` counts cases where a condition holds, found {found}").format(
                    func=func, found=found
                ),
                arg.span,
                hint,
            )
        elif want is T.NUMBER and not is_number(found):
            hint = _("`rate(...)` gives the share of cases where a condition holds")
            self.report(
                "E307",
                _("`{func}` needs a number, found {found}").format(func=func, found=found),
                arg.span,
                hint if found is T.BOOL else _("give a number or a check score"),
            )

    def list_lit(self, e: n.ListLit) -> T:
        for item in e.items:
            self.infer(item)
        return T.LIST

    def map_lit(self, e: n.MapLit) -> T:
        for entry in e.entries:
            self.infer(entry.value)
        return T.MAP


def _both(left: T, right: T, allowed: frozenset[T] | set[T]) -> bool:
    return left in allowed and right in allowed


def _arith_hint(found: T, operand: n.Expr) -> str:
    if found is T.BOOL:
        return _("a condition is not a number; in a metric, `rate(...)` turns it into a share")
    if isinstance(operand, n.Attribute) and _is_case_field(operand):
        return _("declare `{name}: number` in the `case` block if it holds numbers").format(
            name=operand.name
        )
    if found is T.TEXT:
        return _("texts cannot be added or multiplied")
    return _("use numbers on both sides")


def _is_case_field(e: n.Expr) -> bool:
    return isinstance(e, n.Attribute) and isinstance(e.obj, n.Name) and e.obj.name == CASE


def _count(k: int) -> str:
    return _("one argument") if k == 1 else f"{k} arguments"


def _signature(func: str) -> str:
    if func in ("pass_hat", "pass_at"):
        return "condition, k"
    return (
        "value, 90"
        if func == "percentile"
        else "condition"
        if func in ("rate", "count")
        else "value"
    )


_METHODS: dict[type, Any] = {
    n.Number: Typer.number,
    n.Percent: Typer.number,
    n.String: Typer.string,
    n.Bool: Typer.boolean,
    n.Group: Typer.group,
    n.Name: Typer.name,
    n.Attribute: Typer.attribute,
    n.Index: Typer.index,
    n.Unary: Typer.unary,
    n.Binary: Typer.binary,
    n.Call: Typer.call,
    n.ListLit: Typer.list_lit,
    n.MapLit: Typer.map_lit,
}
