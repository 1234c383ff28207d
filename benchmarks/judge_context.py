"""How long the shipped dialogs are for the local judge, in its own tokens.

    python benchmarks/judge_context.py [--data ../shared/data] [--limit N]

For every task dialog of CrossWOZ, MultiWOZ, SGD and USS (../shared/data), the
prompt a `judge(scope: dialog, ...)` check sends is built exactly as the runtime
builds it, written through the local model's chat template and counted with its
tokenizer (the GGUF's vocabulary only: no weights are loaded for this). Printed per
corpus: the prompt's median, 90th and 99th percentile and longest length, the
answer's budget, the share of dialogs whose prompt and answer fit a context of 2048,
4096, 8192 and 16384 tokens, and how `evaldsl.model.context_window.estimate_tokens` (what
the runtime checks before sending) compares with the true count. Without the
`local` extra the true counts are skipped and the estimate alone is printed.
docs/local_models.md publishes the figures; `LOCAL_CONTEXT` is chosen from them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope, select
from evaldsl.model.context_window import estimate_tokens
from evaldsl.model.prompts import build_request
from evaldsl.stdlib.judging import JudgeCheck, JudgeParams

REPO = Path(__file__).resolve().parents[1]
CORPORA = {"CrossWOZ": "crosswoz/dialogs.jsonl", "MultiWOZ": "multiwoz21/dialogs_test.jsonl",
           "SGD": "sgd/dialogs_test.jsonl", "USS-SGD": "uss/uss_sgd.jsonl",
           "USS-MultiWOZ": "uss/uss_mwoz.jsonl"}
ROLES = {"user": "user", "system": "assistant", "assistant": "assistant"}
CRITERIA = "the agent understood the user's goal and completed it politely"
CONTEXTS = (2048, 4096, 8192, 16384)


def shared_data() -> Path:
    configured = os.environ.get("EVALDSL_SHARED_DATA")
    return Path(configured) if configured else REPO.parent / "shared" / "data"


def dialogs(path: Path, limit: int | None) -> Iterator[Case]:
    with path.open(encoding="utf-8") as rows:
        for number, line in enumerate(rows):
            if limit is not None and number >= limit:
                return
            row = json.loads(line)
            messages = [{"role": ROLES[t["role"]], "content": t["text"]} for t in row["turns"]
                        if t.get("role") in ROLES and t.get("text")]
            yield Case.from_dict({"id": row["id"], "messages": messages})


def requests(case: Case) -> Any:
    """The request of one `judge(scope: dialog, ...)` check about `case`."""
    unit, = select(case, Scope("dialog"))
    task = JudgeCheck().plan(JudgeParams(criteria=CRITERIA), unit).task
    assert task is not None
    return build_request(unit, [("quality", task)])


def true_counter() -> Callable[[list[dict[str, str]]], int] | None:
    """Prompt tokens through the local model's chat template and tokenizer, if installed."""
    try:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    except ImportError:
        return None
    from evaldsl.model.local.weights import ensure_weights

    llama = Llama(model_path=str(ensure_weights()), vocab_only=True, verbose=False)
    template = llama.metadata["tokenizer.chat_template"]
    eos = llama.detokenize([llama.token_eos()]).decode("utf-8", "replace")
    formatter = Jinja2ChatFormatter(template, eos_token=eos, bos_token="")

    def count(messages: list[dict[str, str]]) -> int:
        prompt = formatter(messages=messages).prompt  # type: ignore[arg-type]
        return len(llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
    return count


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(path: Path, limit: int | None, count: Any) -> dict[str, Any]:
    exact: list[int] = []
    estimated: list[int] = []
    budget = 0
    for case in dialogs(path, limit):
        request = requests(case)
        budget = request.max_tokens or 0
        messages = list(request.messages)
        estimated.append(estimate_tokens(messages))
        if count is not None:
            exact.append(count(messages))
    lengths = exact or estimated
    out: dict[str, Any] = {
        "dialogs": len(lengths), "median": int(statistics.median(lengths)),
        "p90": percentile(lengths, 0.9), "p99": percentile(lengths, 0.99), "max": max(lengths),
        "answer_budget": budget, "counted": "tokenizer" if exact else "estimate",
        "fits": {n: sum(x + budget <= n for x in lengths) / len(lengths) for n in CONTEXTS}}
    if exact:
        ratios = [e / x for e, x in zip(estimated, exact, strict=True)]
        out["estimate_over_true"] = {"min": round(min(ratios), 2),
                                     "median": round(statistics.median(ratios), 2),
                                     "max": round(max(ratios), 2)}
        out["estimate_below_true"] = sum(r < 1 for r in ratios)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=shared_data())
    parser.add_argument("--limit", type=int, default=None, help="dialogs per corpus")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.limit = 5
        if not args.data.is_dir():
            print(f"skipped: no shared data under {args.data} (set EVALDSL_SHARED_DATA)")
            return
    count = true_counter()
    figures = {name: measure(args.data / rel, args.limit, count)
               for name, rel in CORPORA.items() if (args.data / rel).is_file()}
    header = f"{'corpus':<14}{'n':>5}{'median':>8}{'p90':>7}{'p99':>7}{'max':>7}" + "".join(
        f"{'fit ' + str(n):>11}" for n in CONTEXTS)
    counted = "tokenizer" if count else "estimate"
    print(f"prompt tokens of a judge(scope: dialog) request ({counted})")
    print(header)
    for name, f in figures.items():
        fits = "".join(f"{f['fits'][n]:>11.1%}" for n in CONTEXTS)
        print(f"{name:<14}{f['dialogs']:>5}{f['median']:>8}{f['p90']:>7}{f['p99']:>7}"
              f"{f['max']:>7}{fits}")
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
