"""Hypothesis strategies for spec text: `specs()` draws whole valid specs.

A drawn spec parses and passes the checker without errors (warnings such as
an unused check may remain), and varies in what layout tests need: comments
on their own lines and after code, blank lines, maps and argument lists over
several lines, trailing commas, odd spacing, Chinese identifiers, labels and
texts. Use it for laws that must hold for every spec:

    from tests.strategies import specs

    @given(specs())
    def test_law(text: str) -> None: ...

`mutations(text)` draws broken variants of a text (flipped bytes, cuts,
splices) for robustness laws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

ASCII_WORDS = ("intent", "polite", "fast", "short", "booked", "tone", "reply", "steps", "facts",
               "safe", "brief", "calm")
CHINESE_WORDS = ("意图", "礼貌", "速度", "完整", "回复", "安全", "满意", "步骤", "语气", "效率")
LABEL_WORDS = ("success", "partial", "failure", "good", "fair", "poor", "优秀", "合格", "不合格")
TEXTS = ("请问有什么可以帮您", "服务态度是否专业、礼貌", "the reply answers the question",
         "thanks", "预约成功", "a \"quoted\" word", "tab\tand newline\n", "")
COMMENTS = ("# note", "# 说明：检查回复", "# TODO: tune", "#", "# a # inside")


@dataclass
class _Spec:
    """Definitions drawn so far, so later statements only refer to existing ones."""

    draw: st.DrawFn
    taken: set[str] = field(default_factory=set)
    checks: list[tuple[str, str]] = field(default_factory=list)
    """(name, primitive)."""
    labels: list[str] = field(default_factory=list)
    case_fields: list[str] = field(default_factory=list)

    def name(self, pool: tuple[str, ...]) -> str:
        base = self.draw(st.sampled_from(pool))
        candidate = base
        k = 2
        while candidate in self.taken:
            candidate = f"{base}_{k}"
            k += 1
        self.taken.add(candidate)
        return candidate


def _text(draw: st.DrawFn, empty: bool = True) -> str:
    value = draw(st.sampled_from(TEXTS if empty else TEXTS[:-1]))
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\t", "\\t") + '"'


def _sep(draw: st.DrawFn) -> str:
    """Space between tokens: usually one space, sometimes more or a line break."""
    return draw(st.sampled_from((" ", " ", " ", "  ", "\n    ")))


def _items(draw: st.DrawFn, items: list[str], open_: str, close: str) -> str:
    if not items:
        return open_ + close
    if draw(st.booleans()):
        inner = "".join(f"\n    {i}," for i in items)
        return f"{open_}{inner}\n{close}"
    trailing = "," if draw(st.booleans()) else ""
    return open_ + ", ".join(items) + trailing + close


def _check(spec: _Spec) -> str:
    draw = spec.draw
    name = spec.name(ASCII_WORDS + CHINESE_WORDS)
    kind = draw(st.sampled_from(("keyword", "length", "latency", "regex", "judge", "classify",
                                 "turns")))
    args = _check_args(spec, kind)
    spec.checks.append((name, kind))
    return f"check {name} = {kind}(" + _items(draw, args, "", "").strip() + ")"


def _check_args(spec: _Spec, kind: str) -> list[str]:
    draw = spec.draw
    if kind == "keyword":
        words = [_text(draw, empty=False) for _ in range(draw(st.integers(1, 3)))]
        return [f"any: {_items(draw, words, '[', ']')}"]
    if kind == "length":
        return [f"max_chars: {draw(st.integers(1, 500))}"]
    if kind == "latency":
        scope = draw(st.sampled_from(("each_reply", "last_reply", "any_reply", "turn(2)")))
        return [f"max_ms: {draw(st.integers(100, 9000))}", f"scope: {scope}"]
    if kind == "regex":
        pattern = draw(st.sampled_from(("[0-9]+", "预约", "^ok$")))
        return [f'pattern: "{pattern}"']
    if kind == "judge":
        return [f"criteria: {_text(draw, empty=False)}", f"scale: {draw(st.sampled_from((5, 10)))}"]
    if kind == "turns":
        return [f"max: {draw(st.integers(1, 20))}"]
    labels = [f"{w}: {_text(draw)}" for w in ("a", "b", "c")[: draw(st.integers(1, 3))]]
    args = [f"labels: {_items(draw, labels, '{', '}')}"]
    if spec.case_fields:
        args.append(f"expect: case.{draw(st.sampled_from(spec.case_fields))}")
    return args


def _atom(spec: _Spec, check: tuple[str, str], negative: bool) -> str:
    draw = spec.draw
    name, kind = check
    if negative:
        return draw(st.sampled_from((f"not {name}", f"not {name}.passed")))
    threshold = draw(st.sampled_from(("0.5", "0.8", "0.25", "60%", "90%")))
    options = [f"{name} >= {threshold}", f"{name}.passed", name, f"{name}.score > {threshold}"]
    if kind == "judge":
        options.append(f"{name}.value >= {draw(st.integers(1, 5))}")
    return draw(st.sampled_from(options))


def _condition(spec: _Spec, check: tuple[str, str]) -> str:
    """A condition on one check only, so branches on different checks never cover each other."""
    draw = spec.draw
    negative = draw(st.booleans()) and draw(st.booleans())
    if negative:
        return _atom(spec, check, True)
    atoms = [_atom(spec, check, False) for _ in range(draw(st.integers(1, 2)))]
    joined = " and ".join(atoms)
    return f"({joined})" if draw(st.integers(0, 4)) == 0 else joined


def _outcome(spec: _Spec, named: bool) -> str:
    draw = spec.draw
    count = draw(st.integers(0, min(3, len(spec.checks))))
    chosen = draw(st.permutations(spec.checks))[:count]
    labels = [spec.name(LABEL_WORDS) for _ in range(count + 1)]
    spec.labels.extend(labels)
    pairs = zip(labels, chosen, strict=False)
    lines = [f"  {label} if {_condition(spec, check)}" for label, check in pairs]
    lines.append(f"  {labels[-1]} otherwise")
    head = f"outcome {spec.name(('level', 'grade', '等级'))}" if named else "outcome"
    return head + " {\n" + "\n".join(lines) + "\n}"


def _metric(spec: _Spec) -> str:
    draw = spec.draw
    name = spec.name(("rate", "accuracy", "score", "通过率", "平均分"))
    check = draw(st.sampled_from(spec.checks))[0]
    options = [f"rate({check})", f"mean({check})", f"count({check}.passed)",
               f"percentile({check}, 90)", f"0.5 * rate({check}) + 0.5 * mean({check}.score)"]
    if spec.labels:
        label = draw(st.sampled_from(spec.labels))
        options += [f"rate({label})", f"rate({label} or {check})"]
    value = draw(st.sampled_from(options))
    if draw(st.booleans()):
        other = draw(st.sampled_from(spec.checks))[0]
        value += draw(st.sampled_from((f" where {other}", f" where {other} >= 0.5",
                                       f" where not {other}")))
    fields = spec.case_fields or ["tenant", "domain"]
    if draw(st.booleans()):
        keys = draw(st.lists(st.sampled_from(fields), min_size=1, max_size=2, unique=True))
        value += " by " + ", ".join(f"case.{k}" for k in keys)
    value += draw(st.sampled_from(("", "", " lower is better", " higher is better", " 越低越好",
                                   " 越高越好")))
    return f"metric {name} ={_sep(draw)}{value}"


def _let(spec: _Spec) -> str:
    draw = spec.draw
    name = spec.name(("threshold", "weights", "names", "阈值", "说明"))
    value = draw(st.sampled_from(("0.8", "75%", "3", "1.5e2")))
    if draw(st.booleans()):
        value = _text(draw)
    if draw(st.integers(0, 3)) == 0:
        values = ("1", "2.5", "true", '"x"')
        entries = [f"k{i}: {draw(st.sampled_from(values))}" for i in range(draw(st.integers(1, 3)))]
        value = _items(draw, entries, "{", "}")
    return f"let {name} = {value}"


def _case_block(spec: _Spec) -> str:
    draw = spec.draw
    fields = []
    for _ in range(draw(st.integers(1, 3))):
        name = spec.name(("intent", "lang", "reference", "类别"))
        spec.case_fields.append(name)
        fields.append(f"  {name}: text{draw(st.sampled_from(('', '?')))}")
    return "case {\n" + "\n".join(fields) + "\n}"


def _review(spec: _Spec) -> str:
    draw = spec.draw
    rules = []
    for _ in range(draw(st.integers(1, 2))):
        check = draw(st.sampled_from(spec.checks))[0]
        rate = draw(st.sampled_from(("1%", "2%", "30%", "0.5")))
        rules.append(f"  sample {rate} where not {check} priority 100 - {check}.score * 100")
    seed = f" (seed: {draw(st.integers(0, 99))})" if draw(st.booleans()) else ""
    return f"review{seed} {{\n" + "\n".join(rules) + "\n}"


def _example(spec: _Spec) -> str:
    draw = spec.draw
    lines = [f"  user {_text(draw)}", f"  assistant {_text(draw)}" +
             draw(st.sampled_from(("", " {latency_ms: 800}")))]
    check = draw(st.sampled_from(spec.checks))[0]
    lines.append(f"  given {check} = {draw(st.sampled_from(('true', 'false')))}")
    lines.append(f"  expect {check}" if not spec.labels else
                 f"  expect {draw(st.sampled_from(spec.labels))} or {check}")
    return f"example {_text(draw)} {{\n" + "\n".join(lines) + "\n}"


def _decorate(draw: st.DrawFn, statements: list[str]) -> str:
    """Join statements with blank lines and comments, some on their own lines."""
    out: list[str] = []
    for statement in statements:
        if draw(st.integers(0, 3)) == 0:
            out.append(draw(st.sampled_from(COMMENTS)))
        lines = statement.split("\n")
        if draw(st.integers(0, 3)) == 0:
            k = draw(st.integers(0, len(lines) - 1))
            lines[k] += "  " + draw(st.sampled_from(COMMENTS))
        out.append("\n".join(lines))
        out.append(draw(st.sampled_from(("", "", "\n"))))
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(COMMENTS)))
    return "\n".join(out) + "\n"


@st.composite
def specs(draw: st.DrawFn) -> str:
    """A whole spec that parses and has no checker errors."""
    spec = _Spec(draw)
    statements: list[str] = []
    if draw(st.booleans()):
        statements.append(f"spec {_text(draw)}")
    if draw(st.booleans()):
        statements.append(_case_block(spec))
    statements += [_let(spec) for _ in range(draw(st.integers(0, 2)))]
    statements += [_check(spec) for _ in range(draw(st.integers(1, 5)))]
    if draw(st.booleans()):
        statements.append(_outcome(spec, named=False))
    if draw(st.integers(0, 3)) == 0:
        statements.append(_outcome(spec, named=True))
    statements += [_metric(spec) for _ in range(draw(st.integers(0, 3)))]
    if draw(st.integers(0, 3)) == 0:
        statements.append(_review(spec))
    if draw(st.integers(0, 3)) == 0:
        statements.append(_example(spec))
    return _decorate(draw, statements)


@st.composite
def mutations(draw: st.DrawFn, text: str) -> bytes:
    """`text` broken: bytes flipped, cut short, or spliced with itself at random points."""
    data = bytearray(text.encode("utf-8"))
    kind = draw(st.sampled_from(("flip", "cut", "splice", "insert")))
    if not data:
        return bytes(draw(st.binary(max_size=20)))
    i = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        data[i] = draw(st.integers(0, 255))
    elif kind == "cut":
        del data[i:]
    elif kind == "splice":
        j = draw(st.integers(0, len(data) - 1))
        data = data[:i] + data[j:]
    else:
        data[i:i] = draw(st.sampled_from((b"(", b"{", b"}", b"\"", b"#", b"\xe4", b"not ",
                                          b" and ", b"\n", b"%")))
    return bytes(data)


def _gaps(text: str) -> list[int]:
    """Offsets of spaces outside texts and comments, where any layout is allowed."""
    gaps: list[int] = []
    quote = ""
    comment = False
    escaped = False
    for i, ch in enumerate(text):
        if comment:
            comment = ch != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            comment = True
        elif ch == " ":
            gaps.append(i)
    return gaps


@st.composite
def relayouts(draw: st.DrawFn, text: str) -> str:
    """`text` with some spaces between tokens turned into line breaks, comments or runs."""
    gaps = _gaps(text)
    if not gaps:
        return text
    chosen = sorted(set(draw(st.lists(st.sampled_from(gaps), max_size=12))), reverse=True)
    out = text
    for i in chosen:
        filler = draw(st.sampled_from(("\n", "\n\n", "   ", "  # 注释\n", " # c\n  ", "\t")))
        out = out[:i] + filler + out[i + 1:]
    return out


@st.composite
def laid_out_specs(draw: st.DrawFn) -> str:
    """A spec from `specs()` with its layout scrambled: same meaning, odd line breaks."""
    return draw(relayouts(draw(specs())))
