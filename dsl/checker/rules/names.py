"""Name rules: unknown names (E101, E103, E104, E110), duplicates (E107, E112), clashes (E108).

Every unknown name gets a "did you mean" when something close exists, and
the hint says what kind of thing the suggestion is, because authors mix up
checks, lets and labels more often than they misspell keywords.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import NamedTuple, TypeGuard

from evaldsl.checker.facts.annotations import accepted_types, mentions_table, param_fields
from evaldsl.checker.facts.choices import choice_hint, choices
from evaldsl.checker.facts.context import Context, Site
from evaldsl.checker.facts.symbols import CASE, SymbolTable
from evaldsl.checker.facts.typer import AGGREGATES, FUNCTIONS
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing, meant, similar
from evaldsl.i18n import N_, _
from evaldsl.primitives.valuetypes import CASE_FIELD_TYPES, ValueType
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

RESERVED = frozenset({CASE})
"""Names no definition may take."""
RESERVED_LABELS = frozenset({"error", CASE})
"""Labels the runtime gives itself (`error`) or that would shadow `case`."""

_KIND_WORDS = {"check": N_("a check"), "let": N_("a let"), "table": N_("a table"),
               "label": N_("an outcome label"), "outcome": N_("an outcome block")}


class _Want(NamedTuple):
    """What the place of a bare name expects, which decides the hint for an unknown one."""

    table: bool = False
    """A normalization table (`table: NAME`)."""
    constant: bool = False
    """A constant: a threshold or a parameter fixed at check time, so a let, not a check."""
    parameter: str = ""
    choices: tuple[str, ...] = ()
    """The words of a choice parameter the name was given to."""
    label: bool = False
    """A place where an outcome label is read (a metric, a condition), so the hint names
    the labels when no name is close."""


_ORDERINGS = frozenset({"<", "<=", ">", ">="})


def unknown_names(ctx: Context) -> Iterator[Diagnostic]:
    """E101/E104 for bare names that refer to nothing, E108 for ambiguous labels."""
    for site, exprs in ctx.site_exprs:
        want = _want(ctx, site)
        thresholds = _thresholds(ctx, exprs)
        for name in _referenced(exprs):
            here = want if name is site.expr else want._replace(choices=())
            if id(name) in thresholds:
                here = here._replace(constant=True)
            problem = _resolve(ctx, name, here)
            if problem is not None:
                yield problem


def _referenced(exprs: list[n.Expr]) -> list[n.Name]:
    """The names among `exprs`, without the `case` of `case.x` reads."""
    reads = {id(e.obj) for e in exprs if isinstance(e, n.Attribute) and isinstance(e.obj, n.Name)
             and e.obj.name == CASE}
    return [e for e in exprs if isinstance(e, n.Name) and id(e) not in reads]


_LABEL_ROLES = frozenset({"metric", "condition", "where", "sample", "expect", "alert"})


def _want(ctx: Context, site: Site) -> _Want:
    """What a check argument expects; where labels are read, a label; else nothing."""
    if site.role in _LABEL_ROLES:
        return _Want(label=bool(ctx.symbols.labels))
    if site.role != "arg" or not isinstance(site.owner, n.Check):
        return _Want()
    primitive = ctx.primitive_of(site.owner)
    field = param_fields(primitive).get(site.key) if primitive is not None else None
    if primitive is None or field is None:
        return _Want()
    numeric = accepted_types(field.annotation) == frozenset({ValueType.NUMBER})
    return _Want(table=mentions_table(field.annotation),
                 constant=numeric or site.key not in primitive.dynamic,
                 parameter=site.key, choices=choices(field.annotation))


def _thresholds(ctx: Context, exprs: list[n.Expr]) -> set[int]:
    """The names compared with a check's result (`polite >= 门槛`): thresholds, so constants."""
    found: set[int] = set()
    for e in exprs:
        if isinstance(e, n.Binary) and e.op in _ORDERINGS:
            for side, other in ((e.left, e.right), (e.right, e.left)):
                if isinstance(side, n.Name) and _reads_check(ctx, other):
                    found.add(id(side))
    return found


def _reads_check(ctx: Context, e: n.Expr) -> bool:
    if isinstance(e, n.Attribute):
        e = e.obj
    return isinstance(e, n.Name) and ctx.symbols.kind_of(e.name) == "check"


def _resolve(ctx: Context, name: n.Name, want: _Want) -> Diagnostic | None:
    symbols = ctx.symbols
    word = name.name
    owners = symbols.labels.get(word)
    if symbols.kind_of(word) is not None:
        if owners is not None and len(owners) > 1 and symbols.kind_of(word) == "label":
            blocks = listing(o or _("the verdict") for o in owners)
            return error(
                "E108",
                _("the label `{word}` belongs to several outcome blocks").format(word=word),
                name.span,
                _("{blocks} all give `{word}`; rename it in all but one").format(
                    blocks=blocks, word=word
                ),
            )
        return None
    if word == CASE:
        return error(
            "E101",
            _("`case` is not a value by itself"),
            name.span,
            _("read one of its fields, e.g. `case.intent`"),
        )
    if word in symbols.metrics:
        return error(
            "E101",
            _("`{word}` is a metric and cannot be used in an expression").format(word=word),
            name.span,
            _("repeat its expression, or name the shared part with `let`"),
        )
    if want.choices:
        return error("E101", _("unknown name `{word}`").format(word=word), name.span,
                     choice_hint(want.parameter, want.choices))
    if want.constant and not want.table:
        return error("E101", _("unknown name `{word}`").format(word=word), name.span,
                     _constant_hint(ctx, word))
    close = ctx.similar(word, ctx.value_names)
    if want.table or (close is not None and close in symbols.tables):
        define = _("define it with `table {word} {{ ... }}`").format(word=word)
        table = ctx.similar(word, symbols.tables)
        return error("E104", _("unknown table `{word}`").format(word=word), name.span,
                     meant(table) or define, table or "")
    if close is not None and symbols.kind_of(close) == "label":
        return error(
            "E105",
            _("unknown outcome label `{word}`").format(word=word),
            name.span,
            _("did you mean `{close}`? {labels}").format(close=close, labels=_labels(ctx)),
            close,
        )
    hint = _unknown_hint(ctx, word, close)
    if close is None and want.label:
        hint = _("{labels}; {define}").format(labels=_labels(ctx), define=hint)
    return error(
        "E101",
        _("unknown name `{word}`").format(word=word),
        name.span,
        hint,
        close or "",
    )


def _constant_hint(ctx: Context, word: str) -> str:
    """Only a let can stand for a constant, so only lets are suggested."""
    close = ctx.similar(word, ctx.symbols.lets)
    if close is not None:
        return _("a let with a similar name exists: `{close}`").format(close=close)
    return _("define it first, e.g. `let {word} = ...`").format(word=word)


def _labels(ctx: Context) -> str:
    return _("the labels are {names}").format(names=listing(ctx.symbols.labels))


def _unknown_hint(ctx: Context, word: str, close: str | None) -> str:
    symbols = ctx.symbols
    if close is None:
        return _("define it first, e.g. `let {word} = ...` or `check {word} = ...`").format(
            word=word
        )
    kind = symbols.kind_of(close) or "name"
    return _("{get} with a similar name exists: `{close}`").format(
        get=_(_KIND_WORDS.get(kind, N_("a name"))), close=close
    )


def unknown_label_texts(ctx: Context) -> Iterator[Diagnostic]:
    """E105: `level == "excelent"` where the outcome `level` has no such label."""
    for _site, exprs in ctx.site_exprs:
        for e in exprs:
            if isinstance(e, n.Binary) and e.op in ("==", "!=", "in", "not in"):
                yield from _label_texts(ctx, e)


def _label_texts(ctx: Context, e: n.Binary) -> Iterator[Diagnostic]:
    outcomes = ctx.symbols.outcomes
    for side, other in ((e.left, e.right), (e.right, e.left)):
        if not (isinstance(side, n.Name) and side.name in outcomes and side.name is not None):
            continue
        if ctx.symbols.kind_of(side.name) != "outcome":
            continue
        labels = [b.label for b in outcomes[side.name].branches]
        texts = other.items if isinstance(other, n.ListLit) else (other,)
        for text in texts:
            if isinstance(text, n.String) and text.value not in labels and text.value != "error":
                close = did_you_mean(text.value, labels)
                known = _("`{name}` gives {names} (or `error`)").format(
                    name=side.name, names=listing(labels)
                )
                yield error(
                    "E105",
                    _("the outcome `{name}` has no label `{value}`").format(
                        name=side.name, value=text.value
                    ),
                    text.span,
                    f"{close} {known}" if close else known,
                )


def unknown_case_fields(ctx: Context) -> Iterator[Diagnostic]:
    """E103: `case.x` must be declared when the spec has a `case` block."""
    declared = ctx.symbols.case_fields
    if ctx.symbols.case_block is None or ctx.symbols.kind_of(CASE) is not None:
        return
    for _site, exprs in ctx.site_exprs:
        for e in exprs:
            if _is_case_read(e) and e.name not in declared:
                yield error(
                    "E103",
                    _("the case has no field `{name}`").format(name=e.name),
                    e.name_span,
                    *_case_field_hint(ctx, e.name, declared),
                )


def _is_case_read(e: n.Expr) -> TypeGuard[n.Attribute]:
    return isinstance(e, n.Attribute) and isinstance(e.obj, n.Name) and e.obj.name == CASE


def _case_field_hint(ctx: Context, field: str,
                     declared: dict[str, n.CaseField]) -> tuple[str, str]:
    """The hint and the suggested field (empty when none is close)."""
    close = ctx.similar(field, declared)
    if close:
        return meant(close), close
    return _("declare it in the `case` block, e.g. `{field}: text`").format(field=field), ""


def unknown_case_types(ctx: Context) -> Iterator[Diagnostic]:
    """E111: a `case` field declared with a type the language does not have."""
    for block in ctx.module.of_type(n.CaseBlock):
        for f in block.fields:
            if f.type not in CASE_FIELD_TYPES:
                close = similar(f.type, CASE_FIELD_TYPES)
                known = _("the types are {names}").format(names=listing(CASE_FIELD_TYPES))
                yield error(
                    "E111",
                    _("unknown field type `{type}`").format(type=f.type),
                    f.type_span,
                    f"{meant(close)} {known}" if close else known,
                    close or "",
                )


def unknown_functions(ctx: Context) -> Iterator[Diagnostic]:
    """E110: a call to something that is not an aggregate."""
    for _site, exprs in ctx.site_exprs:
        for e in exprs:
            if isinstance(e, n.Call) and e.func not in AGGREGATES and e.func not in FUNCTIONS:
                yield _unknown_function(ctx, e)


def _unknown_function(ctx: Context, call: n.Call) -> Diagnostic:
    if call.func == "turn":
        return error(
            "E110",
            _("`turn(N)` is a scope, not a function"),
            call.func_span,
            _("use it as a check argument: `scope: turn(3)`"),
        )
    if call.func in ctx.registry:
        return error(
            "E110",
            _("`{func}` is a primitive and can only be called by a check").format(func=call.func),
            call.func_span,
            _("define `check name = {func}(...)` and use `name`").format(func=call.func),
        )
    names = [*AGGREGATES, *FUNCTIONS]
    close = similar(call.func, names)
    known = _("the functions are {names}").format(names=listing(names))
    return error(
        "E110",
        _("unknown function `{func}`").format(func=call.func),
        call.func_span,
        f"{meant(close)} {known}" if close else known,
        close or "",
    )


def duplicate_definitions(ctx: Context) -> Iterator[Diagnostic]:
    """E107: one name for two definitions (checks, lets, tables, metrics share one namespace;
    an alert that writes its aggregate defines a metric of its name)."""
    seen: dict[str, n.Statement] = {}
    for s in ctx.module.statements:
        if isinstance(s, n.Alert) and s.metric is not None:
            s = s.metric
        if not isinstance(s, (n.Check, n.Let, n.Table, n.Metric)):
            if isinstance(s, n.Outcome) and s.name is not None and s.name in seen:
                if not isinstance(seen[s.name], n.Outcome):
                    yield _twice(s.name, s.name_span or s.span, seen[s.name])
            elif isinstance(s, n.Outcome) and s.name is not None:
                seen[s.name] = s
            continue
        if s.name in RESERVED:
            yield error(
                "E112",
                _("`{name}` is reserved and cannot name a {kind}").format(
                    name=s.name, kind=_kind(s)
                ),
                s.name_span,
                _("`{name}.x` reads case fields; choose another name").format(name=s.name),
            )
        elif s.name in seen:
            yield _twice(s.name, s.name_span, seen[s.name])
        else:
            seen[s.name] = s


def _twice(name: str, span: Span, first: n.Statement) -> Diagnostic:
    return error(
        "E107",
        _("the name `{name}` is defined twice").format(name=name),
        span,
        _("the first is the {kind} on line {line}; rename one of them").format(
            kind=_kind(first), line=first.span.line
        ),
    )


def _kind(s: object) -> str:
    words: dict[type, str] = {n.Check: N_("check"), n.Let: N_("let"), n.Table: N_("table"),
             n.Metric: N_("metric"), n.Outcome: N_("outcome block")}
    return _(words.get(type(s), N_("definition")))


def duplicate_singletons(ctx: Context) -> Iterator[Diagnostic]:
    """E107: a second `spec`, `case` or `review` block, or a case field declared twice."""
    firsts: dict[type, n.Statement] = {}
    words = {
        n.SpecHeader: _("`spec` title"),
        n.CaseBlock: _("`case` block"),
        n.Review: _("`review` block"),
    }
    for s in ctx.module.statements:
        kind = type(s)
        if kind in words and kind in firsts:
            first = firsts[kind]
            yield error(
                "E107",
                _("a second {words}").format(words=words[kind]),
                s.span,
                _("the first is on line {line}; merge them into one").format(line=first.span.line),
            )
        firsts.setdefault(kind, s)
    fields: dict[str, n.CaseField] = {}
    for block in ctx.module.of_type(n.CaseBlock):
        for f in block.fields:
            if f.name in fields:
                yield error(
                    "E107",
                    _("the case field `{name}` is declared twice").format(name=f.name),
                    f.name_span,
                    _("the first is on line {line}; keep one").format(
                        line=fields[f.name].span.line
                    ),
                )
            fields.setdefault(f.name, f)


def label_clashes(ctx: Context) -> Iterator[Diagnostic]:
    """E108: a label that is also a check, let, table, metric or outcome name, or reserved."""
    for outcome in ctx.module.of_type(n.Outcome):
        for branch in outcome.branches:
            problem = _label_clash(ctx.symbols, branch)
            if problem is not None:
                yield problem


def _label_clash(symbols: SymbolTable, branch: n.Branch) -> Diagnostic | None:
    label = branch.label
    if label in RESERVED_LABELS:
        reason = (
            _("the runtime gives `error` to cases whose verdict could not be computed")
            if label == "error"
            else _("`case` reads case fields")
        )
        return error(
            "E108",
            _("`{label}` cannot be an outcome label").format(label=label),
            branch.label_span,
            _("{reason}; choose another label").format(reason=reason),
        )
    other = _clashing_kind(symbols, label)
    if other is None:
        return None
    return error(
        "E108",
        _("the label `{label}` clashes with the {other} `{label}`").format(
            label=label, other=other
        ),
        branch.label_span,
        _("rename the label or the {other}; `{label}` in an expression could mean either").format(
            other=other, label=label
        ),
    )


def _clashing_kind(symbols: SymbolTable, label: str) -> str | None:
    spaces: tuple[tuple[str, Container[object]], ...] = (
        (N_("check"), symbols.checks),
        (N_("let"), symbols.lets),
        (N_("table"), symbols.tables),
        (N_("metric"), symbols.metrics),
        (N_("outcome block"), symbols.outcomes),
    )
    return next((_(kind) for kind, space in spaces if label in space), None)
