"""The gold of `verdict_agreement.py`: what the datasets' annotations say of each layer,
and the broken variants of real dialogs built from them."""
