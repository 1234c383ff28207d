"""How far a judge agrees with people: USS satisfaction and FED quality ratings.

    python benchmarks/judge_agreement.py [--judge local|URL] [--judge-model NAME]
        [--config evaldsl.toml] [--tasks uss,fed-turn,fed-dialog]
        [--trials scale10,anchored,yesno,fewshot] [--split dev|test|all]
        [--limit N] [--seed S] [--data ../shared/data] [--out figures.json] [--work DIR]
        [--smoke]

Every task is a corpus of dialogs rated by several people (../shared/data):
USS, each dialog's user satisfaction 1-5 (3-7 annotators); FED turn-level, the
last reply's Relevant, Correct, Engaging (0-2) and Overall (0-4); FED
dialog-level, Overall (0-4), 5 annotators each. Every trial is one way of
asking the same question: a `judge` check whose criteria, scale and examples
differ (the prompt shapes of docs/local_models.md). For each task and trial
the script writes a spec and the cases to a scratch folder, judges them with
`evaldsl run` exactly as a user would (the model layer, fusion, the answer
budget and the journal are the product's own), and compares each answer with
the mean human rating:

- Spearman's rho between the judge's points and the mean rating;
- Cohen's weighted (quadratic) kappa between the judge's points mapped onto the
  human scale and the mean rating, both rounded to the scale's levels;
- 95% bootstrap intervals (seeded) for both, every figure with its n;
- the error rate (errored answers of asked ones), the model calls and tokens;
- the ceiling: each annotator against the mean of the others, the same two
  statistics, on the same items and on the whole corpus (no model is asked for it).

The split is deterministic: each item falls into dev or test by a hash of the
seed and its id, and `--limit` takes the first N of the split in seeded order,
so a larger limit extends a smaller one. Prompt shapes are chosen on dev and
reported on test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.analysis.agreement import (
    Estimate,
    annotator_ceiling,
    bootstrap,
    spearman,
    to_level,
    weighted_kappa,
)

REPO = Path(__file__).resolve().parents[1]
ROLES = {"user": "user", "system": "assistant"}
SEED = 19


def shared_data() -> Path:
    configured = os.environ.get("EVALDSL_SHARED_DATA")
    return Path(configured) if configured else REPO.parent / "shared" / "data"


# ---------------------------------------------------------------- tasks


@dataclass(frozen=True)
class Quality:
    """One rated quality and how each trial asks the judge about it."""

    key: str
    """The rating's name in the data (`overall` for USS's dialog rating)."""
    check: str
    """The check's name in the generated spec."""
    low: int
    high: int
    question: str
    """The plain criterion."""
    anchors: tuple[str, ...]
    """What each level low..high means, in the raters' terms."""
    examples: tuple[tuple[str, int], ...] = ()
    """Short judged texts with their level on the human scale (few-shot)."""


@dataclass(frozen=True)
class Task:
    name: str
    path: str
    level: str
    """Which records of the file: `dialog` or `turn`."""
    qualities: tuple[Quality, ...]


SATISFIED = Quality(
    "overall", "satisfied", 1, 5,
    "How satisfied would the user be with the assistant in this dialog: did it understand "
    "the request, give correct information and complete the task",
    ("very dissatisfied: the task failed or the assistant was unhelpful",
     "dissatisfied: major problems, parts of the request ignored or wrong",
     "neutral: the task got done with some friction or errors",
     "satisfied: the task was completed smoothly",
     "very satisfied: completed efficiently, every request answered"),
    (("user: Book a table for two tonight.\nassistant: Sorry, I cannot help with that.", 1),
     ("user: Book a table for two tonight.\nassistant: Done: a table for two at 7 pm at "
      "Luigi's, confirmation 4411.", 5)))
FED_TURN = (
    Quality("Relevant", "relevant", 0, 2,
            "Is the assistant's last reply relevant to the conversation",
            ("no: off topic", "somewhat", "yes: on topic"),
            (("user: I love hiking.\nassistant: What is your favourite colour?", 0),
             ("user: I love hiking.\nassistant: Nice! Where do you like to hike?", 2))),
    Quality("Correct", "correct", 0, 2,
            "Is the assistant's last reply correct and does it understand the conversation",
            ("no: wrong or misunderstands", "somewhat", "yes: correct"),
            (("user: What is the capital of France?\nassistant: Berlin.", 0),
             ("user: What is the capital of France?\nassistant: Paris.", 2))),
    Quality("Engaging", "engaging", 0, 2,
            "Is the assistant's last reply engaging: would a person want to keep talking",
            ("no: dull", "somewhat", "yes: engaging"),
            (("user: I just got a puppy!\nassistant: Ok.", 0),
             ("user: I just got a puppy!\nassistant: Congratulations! What breed is it, and "
              "have you picked a name?", 2))),
    Quality("Overall", "overall", 0, 4,
            "Overall, how good is the assistant's last reply in this conversation",
            ("very bad", "bad", "neutral", "good", "very good"),
            (("user: I just got a puppy!\nassistant: Ok.", 1),
             ("user: I just got a puppy!\nassistant: Congratulations! What breed is it?", 4))),
)
FED_DIALOG = Quality(
    "Overall", "overall", 0, 4,
    "Overall, how good is the assistant as a conversation partner in this dialog",
    ("very bad", "bad", "neutral", "good", "very good"),
    (("user: Hi!\nassistant: Hi.\nuser: How are you?\nassistant: Hi.", 0),
     ("user: Hi!\nassistant: Hi! How is your day going?\nuser: Great, I went hiking.\n"
      "assistant: Lovely! Where did you go?", 4)))

TASKS = {
    "uss": Task("uss", "uss", "dialog", (SATISFIED,)),
    "fed-turn": Task("fed-turn", "fed/fed.jsonl", "turn", FED_TURN),
    "fed-dialog": Task("fed-dialog", "fed/fed.jsonl", "dialog", (FED_DIALOG,)),
}


# ---------------------------------------------------------------- trials (prompt shapes)


@dataclass(frozen=True)
class Asked:
    """One way of asking: the criteria text, the judge's scale and its examples."""

    criteria: str
    scale: int
    examples: tuple[tuple[str, int], ...] = ()

    def human(self, points: float, quality: Quality) -> float:
        """The judge's points on the raters' scale low..high."""
        return quality.low + points / self.scale * (quality.high - quality.low)


def scale10(q: Quality) -> Asked:
    """The shape a spec author writes first: the plain question, 0-10."""
    return Asked(q.question, 10)


def anchored(q: Quality) -> Asked:
    """The raters' own scale, every point with the words the raters were given."""
    width = q.high - q.low
    points = "; ".join(f"{i} = {a}" for i, a in enumerate(q.anchors))
    return Asked(f"{q.question}. Points: {points}", width)


def yesno(q: Quality) -> Asked:
    """The narrowest task: yes (1) or no (0)."""
    return Asked(f"{q.question}? 1 = yes, 0 = no", 1)


def fewshot(q: Quality) -> Asked:
    """The anchored shape plus two short judged examples, one low and one high."""
    shape = anchored(q)
    examples = tuple((text, level - q.low) for text, level in q.examples)
    return Asked(shape.criteria, shape.scale, examples)


TRIALS: dict[str, Callable[[Quality], Asked]] = {
    "scale10": scale10, "anchored": anchored, "yesno": yesno, "fewshot": fewshot}


def spec_text(task: Task, trial: str) -> str:
    """The spec of one task asked in one trial's shape: one judge check per quality."""
    lines = [f'spec "judge agreement: {task.name}, {trial}"', ""]
    for q in task.qualities:
        asked = TRIALS[trial](q)
        args = [f"criteria: {_string(asked.criteria)}", f"scale: {asked.scale}"]
        if asked.examples:
            shots = ", ".join(f"{{text: {_string(t)}, answer: {a}}}" for t, a in asked.examples)
            args.append(f"examples: [{shots}]")
        lines.append(f"check {q.check} = judge(scope: dialog, {', '.join(args)})")
    return "\n".join(lines) + "\n"


def _string(text: str) -> str:
    """A spec string literal (the DSL's escapes are JSON's)."""
    return json.dumps(text, ensure_ascii=False)


# ---------------------------------------------------------------- data and split


@dataclass(frozen=True)
class Item:
    id: str
    messages: list[dict[str, str]]
    ratings: dict[str, list[float | None]]
    """Per quality key, one rating per annotator (None where one gave none)."""


def items(data: Path, task: Task) -> Iterator[Item]:
    paths = ([data / "uss" / "uss_sgd.jsonl", data / "uss" / "uss_mwoz.jsonl"]
             if task.path == "uss" else [data / task.path])
    for path in paths:
        with path.open(encoding="utf-8") as rows:
            for line in rows:
                if line.strip():
                    row = json.loads(line)
                    if row.get("level", "dialog") == task.level:
                        yield to_item(row)


def to_item(row: dict[str, Any]) -> Item:
    turns = list(row["turns"]) + ([row["response"]] if row.get("response") else [])
    messages = [{"role": ROLES[t["role"]], "content": t["text"]} for t in turns
                if t.get("role") in ROLES and t.get("text")]
    ratings = dict(row.get("ratings") or {})
    ratings["overall"] = row["overall"]["ratings"]
    return Item(row["id"], messages, ratings)


def in_dev(seed: int, item_id: str) -> bool:
    """Half the items, fixed by the seed and the id alone (not by order or limit)."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return digest[0] % 2 == 0


def split(all_items: Sequence[Item], which: str, seed: int, limit: int | None) -> list[Item]:
    """The split's items in seeded order, the first `limit` of them."""
    chosen = [i for i in all_items
              if which == "all" or in_dev(seed, i.id) == (which == "dev")]
    chosen.sort(key=lambda i: i.id)
    random.Random(seed).shuffle(chosen)
    return chosen[:limit] if limit is not None else chosen


# ---------------------------------------------------------------- judging


@dataclass
class Judged:
    """What one `evaldsl run` gave for one task and trial."""

    points: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per check name, per item id, the judge's points."""
    errors: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per check name, per item id, the error reason."""
    cost: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def judge(task: Task, trial: str, chosen: Sequence[Item], judge_args: Sequence[str],
          work: Path) -> Judged:
    """One `evaldsl run` of the trial's spec over the items, or its finished result.

    A folder whose spec, cases and judge are the same and whose run finished is
    read back, not judged again: a long measurement that was stopped resumes at
    the first unfinished trial (`--work`).
    """
    folder = work / f"{task.name}.{trial}"
    folder.mkdir(parents=True, exist_ok=True)
    inputs = {"spec.eval": spec_text(task, trial),
              "cases.jsonl": "".join(json.dumps({"id": i.id, "messages": i.messages},
                                                ensure_ascii=False) + "\n" for i in chosen),
              "judge.txt": " ".join(judge_args)}
    finished = folder / "seconds.txt"
    if finished.is_file() and all(_same(folder / n, text) for n, text in inputs.items()):
        return read_run(folder, task, float(finished.read_text("utf-8")))
    finished.unlink(missing_ok=True)
    for name, text in inputs.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "results.jsonl").unlink(missing_ok=True)  # a fresh run, not a resumed one
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "evaldsl", "run", str(folder / "spec.eval"),
         str(folder / "cases.jsonl"), *judge_args, "--no-cache",
         "--results", str(folder / "results.jsonl"), "-o", str(folder / "report.json"), "-q"],
        capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 1, 4):  # 4: every case errored, still a measurement
        raise SystemExit(f"evaldsl run failed ({done.returncode}) for {task.name}/{trial}:\n"
                         f"{done.stderr}")
    # the wall time as written down, so that this run and the same run read back give the
    # same figures (rounded once here, not again from another value)
    seconds = f"{time.perf_counter() - started:.1f}"
    finished.write_text(seconds, encoding="utf-8")
    return read_run(folder, task, float(seconds))


def _same(path: Path, text: str) -> bool:
    return path.is_file() and path.read_text("utf-8") == text


def read_run(folder: Path, task: Task, seconds: float) -> Judged:
    judged = Judged(seconds=seconds)
    report = json.loads((folder / "report.json").read_text("utf-8"))
    judged.cost = report["cost"]
    for q in task.qualities:
        judged.points[q.check] = {}
        judged.errors[q.check] = {}
    for line in (folder / "results.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        if "id" not in record or "checks" not in record:
            continue  # the journal's header
        for q in task.qualities:
            check = record["checks"].get(q.check) or {}
            value = check.get("value")
            if check.get("status") == "error" or not isinstance(value, (int, float)):
                judged.errors[q.check][record["id"]] = str(check.get("reason", "no answer"))
            else:
                judged.points[q.check][record["id"]] = float(value)
    return judged


# ---------------------------------------------------------------- figures


def human_mean(ratings: Sequence[float | None]) -> float | None:
    given = [float(r) for r in ratings if r is not None]
    return sum(given) / len(given) if given else None


def level_kappa(q: Quality) -> Callable[[Sequence[tuple[float, float]]], float | None]:
    """Weighted kappa of pairs on the quality's scale, both sides rounded to its levels."""
    def kappa(sample: Sequence[tuple[float, float]]) -> float | None:
        levels = [(to_level(a, q.low, q.high), to_level(h, q.low, q.high)) for a, h in sample]
        return weighted_kappa(levels, q.low, q.high)
    return kappa


def figures(pairs: Sequence[tuple[float, float]], q: Quality, seed: int) -> dict[str, Any]:
    """Spearman and weighted kappa of (judge on the human scale, human mean) pairs."""
    return {"spearman": bootstrap(pairs, spearman, seed=seed),
            "kappa": bootstrap(pairs, level_kappa(q), seed=seed)}


def agreement(q: Quality, asked: Asked, chosen: Sequence[Item], judged: Judged,
              seed: int) -> dict[str, Any]:
    points = judged.points[q.check]
    pairs = []
    for item in chosen:
        human = human_mean(item.ratings.get(q.key, []))
        if item.id in points and human is not None:
            pairs.append((asked.human(points[item.id], q), human))
    out = figures(pairs, q, seed)
    out["asked"] = len(chosen)
    out["errors"] = len(judged.errors[q.check])
    out["error_reasons"] = sorted(set(judged.errors[q.check].values()))[:3]
    out["points"] = points
    return out


def ceiling(q: Quality, chosen: Sequence[Item], seed: int) -> dict[str, Any]:
    """Each annotator against the mean of the others, on the same items (resampled)."""
    rows = [item.ratings.get(q.key, []) for item in chosen]
    return {"spearman": bootstrap(rows, annotator_ceiling(spearman), seed=seed),
            "kappa": bootstrap(rows, annotator_ceiling(level_kappa(q)), seed=seed)}


# ---------------------------------------------------------------- output


def interval(e: Estimate) -> str:
    if e.value is None:
        return f"n/a (n={e.n})"
    if e.low is None or e.high is None:
        return f"{_signed(e.value)} (n={e.n})"
    return f"{_signed(e.value)} [{_signed(e.low)}, {_signed(e.high)}]"


def _signed(x: float) -> str:
    """Two decimals with a sign, and no `-0.00` for a zero that rounding left negative."""
    return f"{round(x, 2) or 0.0:+.2f}"


def markdown(rows: list[dict[str, Any]]) -> str:
    head = ("| task | quality | trial | split | judged | errors | Spearman [95% CI] "
            "| weighted kappa [95% CI] | calls | prompt / completion tokens | s |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for r in rows:
        cost = r.get("cost") or {}
        tokens = (f"{cost.get('prompt_tokens', 0):,} / {cost.get('completion_tokens', 0):,}"
                  if cost else "")
        errors = f"{r['errors']} of {r['asked']}" if "asked" in r else ""
        lines.append(
            f"| {r['task']} | {r['quality']} | {r['trial']} | {r['split']} "
            f"| {r['spearman'].n} | {errors} | {interval(r['spearman'])} "
            f"| {interval(r['kappa'])} | {cost.get('model_calls', '') if cost else ''} | {tokens} "
            f"| {r.get('seconds', '')} |")
    return head + "\n".join(lines) + "\n"


def measure(args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    judge_args = [a for flag, value in (("--judge", args.judge),
                                        ("--judge-model", args.judge_model),
                                        ("--config", args.config)) if value
                  for a in (flag, str(value))]
    rows: list[dict[str, Any]] = []
    for task in (TASKS[t] for t in args.tasks):
        every = list(items(args.data, task))
        chosen = split(every, args.split, args.seed, args.limit)
        for q in task.qualities:
            for where, rated in ((args.split, chosen), (f"all {len(every)}", every)):
                rows.append({"task": task.name, "quality": q.key, "split": where,
                             "trial": "annotators (leave one out)",
                             **ceiling(q, rated, args.seed)})
        for trial in args.trials:
            judged = judge(task, trial, chosen, judge_args, work)
            for i, q in enumerate(task.qualities):
                row = {"task": task.name, "quality": q.key, "trial": trial, "split": args.split,
                       **agreement(q, TRIALS[trial](q), chosen, judged, args.seed)}
                if i == 0:  # one request answers every quality of a task (fused)
                    row["cost"] = judged.cost
                    row["seconds"] = round(judged.seconds)
                rows.append(row)
            print(f"{task.name} {trial}: {len(chosen)} items in {judged.seconds:.0f} s",
                  file=sys.stderr, flush=True)
    return rows


def names(allowed: dict[str, Any]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        chosen = [t.strip() for t in text.split(",") if t.strip()]
        unknown = [t for t in chosen if t not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(unknown)}; choose from {', '.join(allowed)}")
        return chosen
    return parse


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--judge", default="local", help="`local`, or an OpenAI-compatible URL")
    p.add_argument("--judge-model", default=None)
    p.add_argument("--config", type=Path, default=None, help="settings (evaldsl.toml)")
    p.add_argument("--tasks", type=names(TASKS), default=list(TASKS))
    p.add_argument("--trials", type=names(TRIALS), default=list(TRIALS))
    p.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    p.add_argument("--limit", type=int, default=None, help="items per task")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--data", type=Path, default=shared_data())
    p.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    p.add_argument("--work", type=Path, default=None,
                   help="keep each trial's spec, cases and journal here; a finished trial "
                        "is read back, not judged again (default: a scratch folder)")
    p.add_argument("--smoke", action="store_true",
                   help="a tiny size: two items of the first task, its first trial, "
                        "judged by the test server on 127.0.0.1 unless --judge names one")
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.smoke:
        args.tasks, args.trials, args.limit = args.tasks[:1], args.trials[:1], 2
    if not (args.data / "uss").is_dir() and "uss" in args.tasks:
        if args.smoke:
            print(f"skipped: no USS data under {args.data} (set EVALDSL_SHARED_DATA)")
            return
        raise SystemExit(f"no USS data under {args.data}")
    server = None
    if args.smoke and args.judge == "local":  # no model in a smoke run: the test server
        sys.path.insert(0, str(REPO))
        from tests.support import openai_server

        server = openai_server.start()
        args.judge, args.judge_model = server.base_url, "smoke"
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            rows = measure(args, args.work or Path(scratch))
    finally:
        if server is not None:
            server.stop()
    print(markdown(rows))
    print(f"wall time: {time.perf_counter() - started:.0f} s", flush=True)
    if args.out:
        plain = [{k: v.to_dict() if isinstance(v, Estimate) else v for k, v in r.items()}
                 for r in rows]
        args.out.write_text(json.dumps(plain, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
