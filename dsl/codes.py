"""The catalogue of diagnostic codes.

Codes are stable: tests, editors and users' CI scripts key on them. A code is
never reused for another meaning; retire one by leaving its line here.
Titles are msgids, marked with `N_` and translated when shown (`title`).
The hundreds group the families: E0 input and syntax, E1 names, E2 primitive
parameters, E3 types, E4 outcomes and thresholds, E5 examples and review, E6 alerts, W warnings.
"""

from __future__ import annotations

from evaldsl.i18n import N_, _

CODES: dict[str, str] = {
    # input and syntax
    "E001": N_("the file is not UTF-8 text"),
    "E002": N_("the file is too large to be a spec"),
    "E003": N_("nesting is too deep"),
    "E004": N_("a lone surrogate, which is no character"),
    "E010": N_("a character that cannot start anything"),
    "E011": N_("a token where the grammar expects something else"),
    "E012": N_("the file ends in the middle of a form"),
    "E013": N_("a text literal is not closed"),
    "E014": N_("a primitive argument without a name"),
    # names
    "E101": N_("unknown name"),
    "E102": N_("unknown field of a check result"),
    "E103": N_("unknown case field"),
    "E104": N_("unknown table"),
    "E105": N_("unknown outcome label"),
    "E106": N_("unknown primitive"),
    "E107": N_("a name defined twice"),
    "E108": N_("an outcome label that clashes with another name"),
    "E109": N_("a cycle among lets"),
    "E110": N_("unknown function"),
    "E111": N_("unknown case field type"),
    "E112": N_("a reserved name used for a definition"),
    # primitive parameters
    "E201": N_("unknown parameter"),
    "E202": N_("missing required parameter"),
    "E203": N_("parameter of the wrong type"),
    "E204": N_("parameter out of range"),
    "E205": N_("scope not accepted by the primitive"),
    "E206": N_("invalid regular expression"),
    "E207": N_("a table maps one source to two targets"),
    "E208": N_("unknown table option"),
    "E209": N_("invalid JSON schema"),
    "E210": N_("unknown scope"),
    "E211": N_("an argument given twice"),
    # types
    "E301": N_("values of different types compared"),
    "E302": N_("a logical operator on something that is not a condition"),
    "E303": N_("arithmetic on something that is not a number"),
    "E304": N_("an aggregate outside a metric"),
    "E305": N_("a per-case value used bare inside a metric"),
    "E306": N_("a condition that is not true or false"),
    "E307": N_("wrong arguments to a function"),
    "E308": N_("an aggregate inside an aggregate"),
    "E309": N_("a value of the wrong type"),
    "E310": N_("a group key that is not a case field"),
    "E311": N_("a case field whose type cannot group cases"),
    # outcomes and thresholds
    "E401": N_("an outcome without `otherwise`"),
    "E402": N_("a branch after `otherwise`"),
    "E403": N_("a label used twice in one outcome"),
    "E404": N_("two outcome blocks with the same name"),
    "E405": N_("a branch that can never fire"),
    "E406": N_("a threshold outside the value's range"),
    "E407": N_("a percentage outside 0..100%"),
    # examples and review
    "E501": N_("unknown message role in an example"),
    "E502": N_("an example pins an unknown check or field"),
    "E503": N_("an example without `expect`"),
    "E504": N_("a review rule outside 0..100%"),
    "E505": N_("unknown review option"),
    "E506": N_("an example pins a value its check could never give"),
    # alerts
    "E601": N_("a windowed alert that does not compare a metric with a constant"),
    "E602": N_("an alert window or minimum that is not a positive whole number"),
    "E603": N_("two alerts with the same name"),
    # warnings
    "W101": N_("a check that nothing uses"),
    "W102": N_("a let that nothing uses"),
    "W103": N_("a table that nothing uses"),
    "W104": N_("a `where` that can never hold"),
    "W105": N_("an outcome label that nothing can reach"),
    "W106": N_("a percentage compared with a value that is not a share"),
    "W107": N_("a windowed alert that fires when its metric gets better"),
}
"""Code -> its one-line title in English (the msgid); `title` gives it in the current language."""


def title(code: str) -> str:
    """The one-line title of `code` in the current language."""
    return _(CODES[code])
