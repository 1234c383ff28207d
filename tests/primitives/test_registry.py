"""Registering primitives: into the default registry at any time, or into one's own."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import evaldsl
from evaldsl.primitives.registry import default_registry


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter: the default registry is built once per process."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60, check=False)


class TestLateRegistration:
    def test_a_primitive_registered_after_the_first_load_is_usable(self) -> None:
        """The default registry exists once a spec is loaded; a later `@primitive` joins it."""
        done = _python('''
            import evaldsl
            from pydantic import BaseModel
            evaldsl.loads('check a = length(max_chars: 9)\\nmetric r = rate(a)\\n')

            class Params(BaseModel):
                word: str

            @evaldsl.primitive("says", params=Params, scopes={"last_reply"},
                               default_scope="last_reply", cost=evaldsl.Cost.FREE)
            def says(params):
                def evaluate(case, scope):
                    return evaldsl.evaluate_over(case, scope, lambda unit: evaldsl.CheckResult.of(
                        params.word in unit.text, None, None, ""))
                return evaluate

            spec = evaldsl.loads('check s = says(word: "hi")\\nmetric r = rate(s)\\n')
            case = {"id": "c", "messages": [{"role": "assistant", "content": "hi there"}]}
            print(spec.evaluate(case).checks["s"].passed)
        ''')
        assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr


class TestStandardRegistry:
    def test_holds_the_standard_library(self) -> None:
        """`Registry.standard()` starts a registry of one's own from every stdlib primitive."""
        registry = evaldsl.Registry.standard()
        assert "judge" in registry and registry.get("keyword") is not None
        assert registry is not default_registry()

    def test_a_primitive_can_be_registered_into_it_alone(self) -> None:
        """`@primitive(..., registry=r)` adds to `r` and leaves the default registry alone."""
        from pydantic import BaseModel

        class Params(BaseModel):
            pass

        registry = evaldsl.Registry.standard()

        @evaldsl.primitive("always", params=Params, registry=registry)
        def always(params: Params) -> object:
            return lambda case, scope: evaldsl.CheckResult.of(True, None, None, "")

        assert registry.get("always") is not None
        assert "always" not in default_registry()
        spec = evaldsl.loads("check a = always()\nmetric r = rate(a)\n", registry=registry)
        assert spec.evaluate({"id": "c", "messages": []}).checks["a"].passed is True
