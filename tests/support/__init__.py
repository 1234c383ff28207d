"""Test support code shared across the suite: the model test server, the interpreter kit."""
