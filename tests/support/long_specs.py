"""Long specs built in code: chains of lets and thousands of checks, for the size limits."""

from __future__ import annotations


def let_chain(length: int, *, gate: str = "") -> str:
    """`length` per-case lets, each the one before plus one, over `case.x`, and a verdict.

    With `gate` (a check's name) the last let also reads that check, so a model check at
    the end of the chain makes evaluation take rounds.
    """
    lines = ["case { x: number }", 'check a = probe(key: "a")', "let v0 = case.x"]
    lines += [f"let v{i} = v{i - 1} + 1" for i in range(1, length)]
    last = f"v{length - 1}"
    condition = f"{gate} and {last} > 0" if gate else f"a and {last} > 0"
    lines += ["outcome {", f"  big if {condition}", "  small otherwise", "}",
              f"metric top = mean({last})"]
    return "\n".join(lines) + "\n"


def many_checks(count: int) -> str:
    """`count` independent checks and one metric over each."""
    lines = [f'check c{i} = probe(key: "k{i}")' for i in range(count)]
    lines += [f"metric m{i} = rate(c{i})" for i in range(count)]
    return "\n".join(lines) + "\n"
