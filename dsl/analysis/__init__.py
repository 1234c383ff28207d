"""Looking at a spec or a run from outside: `explain` and calibration against human labels.
"""
