"""What a run leaves behind, all built from one typed report (`document.ReportDoc`).

- `results`: the journal, results.jsonl (one line per case; recovery after a kill)
- `layout`: what a report needs to know about the spec (branches as written, `where`)
- `document`: report.json's shape as msgspec structs; docs/report.schema.json is generated
  from it
- `json_report`: `ReportBuilder` folds case records into a `ReportDoc`
- `html`, `markdown`, `junit`, `terminal`: the other views of the same report
- `progress`: the progress bar; `stats`: Wilson intervals, histograms, number formats
"""
