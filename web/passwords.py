"""What a password of an account must be (OWASP ASVS 2.1): 12 characters at least and
128 at most, any characters (spaces and every script welcome, nothing required of its
composition), and not among the passwords people choose most nor guessed in fewer than
10⁸ tries: zxcvbn's estimate, whose dictionaries hold the 30,000 passwords most common
in published breaches, with the account's name and the club's words as more. A
password is checked when it is set (an account made, a password reset or changed), at
the command line and the service alike; never at sign-in, where it is only compared.
"""

from __future__ import annotations

from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused

_ = language._  # every text a person reads, in the request's language

PASSWORD_MIN = 12
PASSWORD_MAX = 128
GUESSES_LOG10_MIN = 8  # zxcvbn's score 3, "safely unguessable": 10^8 guesses at the least
CLUB_WORDS = ("pulka", "pulya", "preferans", "arbiter", "director", "пулька", "преферанс")


def check_password(password: str, name: str, field: str = "password") -> None:
    """Refuse ``password`` for the account ``name``, naming ``field``."""
    if len(password) < PASSWORD_MIN:
        raise Refused("accounts", _("a password has {n} characters at least").format(n=PASSWORD_MIN),
                      _("{low} to {high} characters, a few words together are easy to remember").format(
                          low=PASSWORD_MIN, high=PASSWORD_MAX), field=field)
    if len(password) > PASSWORD_MAX:
        raise Refused("accounts", _("a password has {n} characters at most").format(n=PASSWORD_MAX),
                      _("{low} to {high} characters, a few words together are easy to remember").format(
                          low=PASSWORD_MIN, high=PASSWORD_MAX), field=field)
    from zxcvbn import zxcvbn  # its dictionaries are read on first use

    guessed = zxcvbn(password, user_inputs=[name, *CLUB_WORDS])
    if float(guessed["guesses_log10"]) < GUESSES_LOG10_MIN:
        raise Refused("accounts", _("this password is among those most often chosen or found in breaches, or is made "
                                    "of the account's name or a pattern: it would be guessed"),
                      _("another password: a few unrelated words together are easy to remember"), field=field)
