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
    print(f"{len(rows)} dialogs ({sum(1 for r, _g in rows if '#' in r['id'])} broken) "
          f"in {time.perf_counter() - started:.1f} s")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dialogs", nargs="+", type=Path, default=None, metavar="FILE")
    p.add_argument("--predictions", type=Path, default=None, metavar="OUT.jsonl")
    p.add_argument("--split", choices=("test", "dev", "all"), default="test")
    p.add_argument("--smoke", action="store_true", help="a few dialogs of each file")
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


def _predict(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every record judged by its source's layered spec, from a text-only copy."""
    out: dict[str, dict[str, Any]] = {}
    for source in sorted({r["source"] for r in records}):
        spec = evaldsl.load(REPO / "specs" / "layered" / SPECS[source])
        mine = [r for r in records if r["source"] == source]
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"{source}.jsonl"
            with open(path, "w", encoding="utf-8") as handle:
                for record in mine:
                    handle.write(json.dumps(_text_only(record), ensure_ascii=False) + "\n")
            cases = read_cases([path], CaseSchema.of(spec, FieldMap.load(MAP)), "fail")
            results = asyncio.run(_evaluate(spec, cases))
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
    l2 = [(gold.completion(g), p["completion"]) for g, p in pairs]
    l2 = [(want, got) for want, got in l2 if want is not None]
    mae = _mean([abs(want - got) if got is not None else 1.0 for want, got in l2])
    kappa2 = kappa([(want == 1.0, got is not None and got == 1.0) for want, got in l2])
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
