"""What a run leaves behind, all built from one report dict.

- `results`: the journal, results.jsonl (one line per case; recovery after a kill)
- `layout`: what a report needs to know about the spec (branches as written, `where`)
- `json_report`: `ReportBuilder` folds case records into report.json
  (docs/report.schema.json)
- `html`, `markdown`, `junit`, `terminal`: the other views of the same report
- `progress`: the progress bar; `stats`: Wilson intervals, histograms, number formats
"""
