"""How often the layered specs' verdicts agree with the datasets' gold annotations.

    python benchmarks/verdict_agreement.py --dialogs FILE [FILE ...] --predictions OUT.jsonl

Reads dialog.v1 files (CrossWOZ, MultiWOZ, SGD; each record's `source` picks its spec
in `specs/layered/`), reads every dialog as a case through the project's field map
(`specs/layered/dialog_v1.map.toml`, the same `--map` mechanism `evaldsl run` has)
from a text-only copy, runs the spec, and writes one line per dialog:
`{"id", "intent", "completion", "success"}` (null where the spec's layer does not
apply). Where the files carry annotations it also builds one broken variant of each
dialog (`layered.variants`) and prints, per dataset and layer, the agreement with the
gold (`layered.gold`): L1 accuracy, L2 mean absolute error and Cohen's kappa of "every
request answered", L3 accuracy and kappa. A null prediction where the gold has a value
counts as wrong.

Dialogs are split into dev and test by a fixed hash of their id (a broken variant goes
with its dialog); the specs were tuned on dev, so the figures printed are test's
unless `--split` says otherwise. Without `--dialogs` it reads the dialog.v1 files of
`../shared/data` when they are there. `--smoke` runs a few dialogs of each file.

`--judge local` (or `openai`, the configured endpoint) adds the configuration with a chat
judge: on a sample of `--sample` recorded dialogs per dataset (the first by a fixed hash
of the id) and their broken variants, `specs/layered/judged.eval` asks the judge whether
the agent gave everything the user asked for, and a dialog counts as all answered (L2
kappa) and a success (L3) only when the rules say so and the judge agrees (the judge
reads only the dialogs the rules passed: it can only take a success away). It prints
the rules' figures on the same sample beside them. The local judge runs on the CPU: a
sample of 20 takes some minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from layered import gold, variants  # noqa: E402

import evaldsl  # noqa: E402
from evaldsl.cases.fieldmap import FieldMap  # noqa: E402
from evaldsl.cases.loading import read_cases  # noqa: E402
from evaldsl.cases.rows import CaseSchema  # noqa: E402

SPECS = {"crosswoz": "crosswoz.eval", "multiwoz21": "multiwoz.eval", "sgd": "sgd.eval"}
"""A record's `source` -> its layered spec in specs/layered/."""
MAP = REPO / "specs" / "layered" / "dialog_v1.map.toml"
SHARED = Path(os.environ.get("EVALDSL_SHARED_DATA") or REPO.parent / "shared" / "data")
"""The third-party data beside the checkout; `EVALDSL_SHARED_DATA` names another place."""
DEFAULT_FILES = ("crosswoz/dialogs.jsonl", "multiwoz21/dialogs_test.jsonl",
                 "multiwoz21/dialogs_val_uss.jsonl", "sgd/dialogs_test.jsonl",
                 "sgd/dialogs_train_uss.jsonl")
TEXT_ONLY = ("id", "source", "lang", "split")
"""The fields of a record the specs may see, besides each turn's role and text."""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    files = args.dialogs or [SHARED / f for f in DEFAULT_FILES if (SHARED / f).is_file()]
    if not files:
        print("skipped: no dialog.v1 files given and none in ../shared/data")
        return 0
    started = time.perf_counter()
    records = _records(files, 8 if args.smoke else None)
    schemas = _schemas(files)
    rows = _with_variants(records, args.split)
    predictions = _predict([r for r, _g in rows])
    if args.predictions:
        _write(args.predictions, rows, predictions)
    scored = [(r, g, predictions[r["id"]]) for r, g in rows if g is not None]
    if scored:
        print(_table(scored, schemas, args.split))
    if args.judge and scored:
        print(_judged_table(scored, schemas, args))
    print(f"{len(rows)} dialogs ({sum(1 for r, _g in rows if '#' in r['id'])} broken) "
          f"in {time.perf_counter() - started:.1f} s")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dialogs", nargs="+", type=Path, default=None, metavar="FILE")
    p.add_argument("--predictions", type=Path, default=None, metavar="OUT.jsonl")
    p.add_argument("--split", choices=("test", "dev", "all"), default="test")
    p.add_argument("--smoke", action="store_true", help="a few dialogs of each file")
    p.add_argument("--judge", choices=("local", "openai"), default=None,
                   help="also judge a sample with a chat judge (specs/layered/judged.eval)")
    p.add_argument("--sample", type=int, default=20, metavar="N",
                   help="recorded dialogs per dataset the judge reads (with their variants)")
    return p


def _records(files: list[Path], limit: int | None) -> list[dict[str, Any]]:
    out = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if limit is not None and number > limit:
                    break
                if line.strip():
                    out.append(json.loads(line))
    return out


def _schemas(files: list[Path]) -> dict[str, Any]:
    """SGD's service schemas (which intents are transactions), beside its dialogs."""
    for path in files:
        candidate = Path(path).parent / "schemas.json"
        if candidate.is_file():
            return {s["service_name"]: s for s in json.loads(candidate.read_text())}
    return {}


def split_of(record_id: str) -> str:
    """dev or test, by a fixed hash of the dialog's id (a variant's is its dialog's)."""
    return "dev" if variants.fraction(record_id.split("#")[0] + "#split") < 0.5 else "test"


def _annotated(record: dict[str, Any]) -> bool:
    return any("acts" in t for t in record.get("turns") or [])


def _with_variants(records: list[dict[str, Any]], split: str,
                   ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(record, its gold or None) for the chosen split, broken variants after each source's
    recorded dialogs."""
    chosen = [r for r in records if split == "all" or split_of(r["id"]) == split]
    out: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    by_source: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in records:
        by_source.setdefault((record["source"], record.get("lang", "")), []).append(record)
    pools = {key: variants.fillers(group) for key, group in by_source.items()}
    for record in chosen:
        if not _annotated(record):
            out.append((record, None))
            continue
        out.append((record, record))
        broken = variants.broken(record, pools[(record["source"], record.get("lang", ""))])
        if broken is not None:
            out.append((broken, broken))
    return out


def judge_sample(ids: list[str], n: int) -> set[str]:
    """The first `n` recorded dialogs by a fixed hash of the id, with their variants."""
    recorded = sorted((i for i in ids if "#" not in i),
                      key=lambda i: variants.fraction(i + "#judge"))[:n]
    chosen = set(recorded)
    return {i for i in ids if i.split("#")[0] in chosen}


def _judged_table(scored: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]],
                  schemas: dict[str, Any], args: argparse.Namespace) -> str:
    """The rules and the rules with the judge, on the same sample of each dataset."""
    os.environ["EVALDSL_JUDGE"] = args.judge
    started = time.perf_counter()
    lines = [f"judged sample: {args.sample} recorded dialogs per dataset and their broken "
             f"variants; judge: {args.judge}",
             "dataset      n   L1 acc (n)       L2 MAE (n)  L2 kappa   L3 acc   L3 kappa"]
    for source in sorted({r["source"] for r, _g, _p in scored}):
        mine = [(r, g, p) for r, g, p in scored if r["source"] == source]
        sample = judge_sample([r["id"] for r, _g, _p in mine], args.sample)
        mine = [(r, g, p) for r, g, p in mine if r["id"] in sample]
        # the judge can only take a success away: it reads the dialogs the rules passed
        verdicts = _judge([r for r, _g, p in mine
                           if p["success"] or p["completion"] in (None, 1.0)])
        rules = [(g, p) for _r, g, p in mine]
        judged = [(g, _with_judge(p, verdicts.get(p["id"]))) for _r, g, p in mine]
        lines.append(_row(source, rules, schemas).replace(source, f"{source[:6]} rules", 1))
        lines.append(_row(source, judged, schemas).replace(source, f"{source[:6]} +judge", 1))
        errors = sum(1 for v in verdicts.values() if v is None)
        vetoed = sum(1 for v in verdicts.values() if v is False)
        lines.append(f"  {source}: {len(mine)} dialogs in the sample, {len(verdicts)} the rules "
                     f"passed read by the judge, {vetoed} failed by it, {errors} judge errors")
    lines.append(f"judged in {time.perf_counter() - started:.0f} s")
    return "\n".join(lines)


def _judge(records: list[dict[str, Any]]) -> dict[str, bool | None]:
    """Per dialog, whether the judge passed every exchange (None: an error)."""
    spec = evaldsl.load(REPO / "specs" / "layered" / "judged.eval")
    try:
        results = _run(spec, records)
    finally:
        spec.close()
    out: dict[str, bool | None] = {}
    for result in results:
        verdict = result.labels.get("outcome")
        out[result.id] = None if verdict in (None, "error") else verdict == "answered"
    return out


def _with_judge(prediction: dict[str, Any], passed: bool | None) -> dict[str, Any]:
    """The rules' prediction with the judge's veto: not all answered (L2 kappa) and no
    success when the judge found an exchange unanswered; the share (L2 MAE) stays the
    rules', and a judge error leaves the prediction as it was."""
    if passed is not False:
        return prediction
    return dict(prediction, all_answered=False,
                success=False if prediction["success"] is not None else None)


def _run(spec: Any, records: list[dict[str, Any]]) -> list[Any]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.jsonl"
        with open(path, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(_text_only(record), ensure_ascii=False) + "\n")
        cases = read_cases([path], CaseSchema.of(spec, FieldMap.load(MAP)), "fail")
        return asyncio.run(_evaluate(spec, cases))


def _predict(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every record judged by its source's layered spec, from a text-only copy."""
    out: dict[str, dict[str, Any]] = {}
    for source in sorted({r["source"] for r in records}):
        spec = evaldsl.load(REPO / "specs" / "layered" / SPECS[source])
        mine = [r for r in records if r["source"] == source]
        try:
            results = _run(spec, mine)
        finally:
            spec.close()
        out.update({r.id: _prediction(r) for r in results})
    return out


async def _evaluate(spec: Any, cases: Any) -> list[Any]:
    return [r async for r in spec.evaluate_many(cases, concurrency=64)]


def _text_only(record: dict[str, Any]) -> dict[str, Any]:
    row = {k: record[k] for k in TEXT_ONLY if k in record}
    row["turns"] = [{"role": t["role"], "text": t["text"]} for t in record["turns"]]
    return row


def _prediction(result: Any) -> dict[str, Any]:
    """The layers from a result: the `intent` check's label, the `completion` check's
    share (null where it found no request) and whether the verdict is `success`."""
    intent = result.checks.get("intent")
    completion = result.checks.get("completion")
    label = intent.fields.get("label") if intent is not None and not intent.is_error else None
    share = None
    if completion is not None and not completion.is_error and completion.fields.get("count"):
        share = float(completion.value)
    verdict = result.labels.get("outcome")
    return {"id": result.id, "intent": label, "completion": share,
            "success": None if verdict in (None, "error") else verdict == "success"}


def _write(path: Path, rows: list[tuple[dict[str, Any], Any]],
           predictions: dict[str, dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record, _gold in rows:
            handle.write(json.dumps(predictions[record["id"]], ensure_ascii=False) + "\n")


def _table(scored: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]],
           schemas: dict[str, Any], split: str) -> str:
    lines = [f"split: {split} (dev/test by a fixed hash of the id); recorded + broken dialogs",
             "dataset      n   L1 acc (n)       L2 MAE (n)  L2 kappa   L3 acc   L3 kappa"]
    for source in sorted({r["source"] for r, _g, _p in scored}):
        mine = [(g, p) for r, g, p in scored if r["source"] == source]
        lines.append(_row(source, mine, schemas))
    return "\n".join(lines)


def _row(source: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]],
         schemas: dict[str, Any]) -> str:
    l1 = [(gold.intents(g), p["intent"]) for g, p in pairs]
    l1 = [(labels, label) for labels, label in l1 if labels]
    acc1 = _mean([label is not None and label.lower() in {x.lower() for x in labels}
                  for labels, label in l1])
    l2 = [(gold.completion(g), p["completion"], p.get("all_answered", True)) for g, p in pairs]
    l2 = [(want, got, every) for want, got, every in l2 if want is not None]
    mae = _mean([abs(want - got) if got is not None else 1.0 for want, got, _e in l2])
    kappa2 = kappa([(want == 1.0, got is not None and got == 1.0 and every)
                    for want, got, every in l2])
    l3 = [(gold.success(g, schemas), p["success"]) for g, p in pairs]
    acc3 = _mean([want == got for want, got in l3])
    kappa3 = kappa([(want, got is True) for want, got in l3])
    return (f"{source:10} {len(pairs):4}   {acc1:.3f} ({len(l1):4})   {mae:.3f} ({len(l2):4})"
            f"   {kappa2:+.3f}    {acc3:.3f}   {kappa3:+.3f}")


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two yes/no raters; 0 when chance agreement is total."""
    if not pairs:
        return float("nan")
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    yes_a = sum(a for a, _b in pairs) / n
    yes_b = sum(b for _a, b in pairs) / n
    chance = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    return 0.0 if chance == 1 else (observed - chance) / (1 - chance)


def _mean(values: list[Any]) -> float:
    return sum(float(v) for v in values) / len(values) if values else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
