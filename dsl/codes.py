"""The catalogue of diagnostic codes.

Codes are stable: tests, editors and users' CI scripts key on them. A code is
never reused for another meaning; retire one by leaving its line here.
The hundreds group the families: E0 input and syntax, E1 names, E2 primitive
parameters, E3 types, E4 outcomes and thresholds, E5 examples, W warnings.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    # input and syntax
    "E001": "the file is not UTF-8 text",
    "E002": "the file is too large to be a spec",
    "E003": "nesting is too deep",
    "E010": "a character that cannot start anything",
    "E011": "a token where the grammar expects something else",
    "E012": "the file ends in the middle of a form",
    "E013": "a text literal is not closed",
    "E014": "a primitive argument without a name",
    # names
    "E101": "unknown name",
    "E102": "unknown field of a check result",
    "E103": "unknown case field",
    "E104": "unknown table",
    "E105": "unknown outcome label",
    "E106": "unknown primitive",
    "E107": "a name defined twice",
    "E108": "an outcome label that clashes with another name",
    "E109": "a cycle among lets",
    "E110": "unknown function",
    "E111": "unknown case field type",
    "E112": "a reserved name used for a definition",
    # primitive parameters
    "E201": "unknown parameter",
    "E202": "missing required parameter",
    "E203": "parameter of the wrong type",
    "E204": "parameter out of range",
    "E205": "scope not accepted by the primitive",
    "E206": "invalid regular expression",
    "E207": "a table maps one source to two targets",
    "E208": "unknown table option",
    "E209": "invalid JSON schema",
    "E210": "unknown scope",
    "E211": "an argument given twice",
    # types
    "E301": "values of different types compared",
    "E302": "a logical operator on something that is not a condition",
    "E303": "arithmetic on something that is not a number",
    "E304": "an aggregate outside a metric",
    "E305": "a per-case value used bare inside a metric",
    "E306": "a condition that is not true or false",
    "E307": "wrong arguments to a function",
    "E308": "an aggregate inside an aggregate",
    "E309": "a value of the wrong type",
    # outcomes and thresholds
    "E401": "an outcome without `otherwise`",
    "E402": "a branch after `otherwise`",
    "E403": "a label used twice in one outcome",
    "E404": "two outcome blocks with the same name",
    "E405": "a branch that can never fire",
    "E406": "a threshold outside the value's range",
    "E407": "a percentage outside 0..100%",
    # examples and review
    "E501": "unknown message role in an example",
    "E502": "an example pins an unknown check or field",
    "E503": "an example without `expect`",
    "E504": "a review rule outside 0..100%",
    "E505": "unknown review option",
    "E506": "an example pins a value its check could never give",
    # warnings
    "W101": "a check that nothing uses",
    "W102": "a let that nothing uses",
    "W103": "a table that nothing uses",
    "W104": "a `where` that can never hold",
    "W105": "an outcome label that nothing can reach",
    "W106": "a percentage compared with a value that is not a share",
}
