"""Judges and embedders through the official `openai` client.
"""
