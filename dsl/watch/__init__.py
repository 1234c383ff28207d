"""`evaldsl watch`: a live monitor that judges each finished session as it arrives.

Sessions come from followed JSONL files and from `POST /sessions`; each is
judged by the spec, written to the watch journal, folded into the windows of
its arrival time, and the spec's `alert` statements are checked (docs/watch.md).
"""
