"""Driving a live agent: the agent under test (a target), scripted user turns, transcripts.

A scenario row lists the user's messages; the driver sends them to the target one turn at
a time and records the dialog in the OpenAI chat format `evaldsl run` judges. Targets are
configured outside the spec (`[targets.NAME]` in `evaldsl.toml`): a spec says what to
judge, not whom (docs/targets.md).
"""
