"""The language server: the language service (`evaldsl.service`) carried over LSP by pygls,
with the framing of its messages on stdin. `evaldsl lsp` only starts it."""
