"""regex with `expect`: Inspect's `pattern` scorer tests with Inspect's verdicts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.stdlib.conftest import Run, dialog

# (pattern, reply, targets, Inspect's options, verdict, the answer Inspect reports), from
# Inspect's tests/scorer/test_pattern.py. Inspect ignores case by default; these inputs
# do not depend on it except where `ignore_case` is given.
INSPECT_PATTERN: list[tuple[str, str, list[str], dict[str, Any], bool, str | None]] = [
    ("(foo)", "foo", ["foo"], {}, True, None),
    ("(foo)", "foo", ["target doesn't match"], {}, False, None),
    ("(foo)", "model doesn't match", ["foo"], {}, False, None),
    ("(FOO)", "foo", ["foo"], {"ignore_case": True}, True, None),
    ("(foo) (bar)", "foo bar", ["foo"], {}, True, "foo"),
    ("(foo) (bar)", "foo bar", ["bar"], {}, True, "bar"),
    ("(foo) (foo)", "foo foo", ["foo"], {"all_groups": True}, True, "foo"),
    ("(foo|bar) (foo|bar)", "foo bar", ["bar"], {"all_groups": True}, False, None),
    ("(foo) (bar)", "foo bar", ["target doesn't match"], {}, False, None),
    ("(foo) (bar)", "model doesn't match", ["bar"], {}, False, None),
    ("(f[oz]o) (b[az]r)", "foo bzr", ["bar"], {}, False, None),
]


@pytest.mark.parametrize(("pattern", "reply", "targets", "options", "verdict", "group"),
                         INSPECT_PATTERN)
def test_inspect_pattern(run: Run, pattern: str, reply: str, targets: list[str],
                         options: dict[str, Any], verdict: bool, group: str | None) -> None:
    r = run("regex", dialog(("user", "?"), ("assistant", reply)), pattern=pattern,
            expect=targets, **options)
    assert r.passed is verdict
    if group is not None:
        assert r.fields["group"] == group


class TestGroups:
    def test_a_named_group(self, run: Run) -> None:
        case = dialog(("user", "?"), ("assistant", "订单 A12 已取消，退款 300 元"))
        r = run("regex", case, pattern=r"退款 (?P<amount>\d+)", group="amount", expect="300")
        assert (r.passed, r.fields["group"], r.value) == (True, "300", "退款 300")

    def test_a_single_group_that_differs_is_reported(self, run: Run) -> None:
        case = dialog(("user", "?"), ("assistant", "ANSWER: C"))
        r = run("regex", case, pattern="ANSWER: *([A-D])", expect="B")
        assert (r.passed, r.fields["group"], r.reason) == (False, "C", "captured `C`, expected `B`")

    def test_without_expect_the_first_group_is_a_field(self, run: Run) -> None:
        case = dialog(("user", "?"), ("assistant", "ANSWER: C"))
        assert run("regex", case, pattern="ANSWER: *([A-D])").fields["group"] == "C"

    @pytest.mark.parametrize(("options", "message"), [
        ({"group": 2}, "no group 2"), ({"group": "x"}, "no group named `x`"),
        ({"must_match": False}, "needs `must_match: true`")])
    def test_refused(self, run: Run, options: dict[str, Any], message: str) -> None:
        with pytest.raises(ValidationError, match=message):
            run("regex", dialog(("user", "?"), ("assistant", "a")), pattern="(a)",
                expect="a", **options)
