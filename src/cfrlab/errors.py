"""The one exception type the CLI turns into a readable line and a non-zero exit."""


class CfrlabError(Exception):
    """A user-facing error: bad input, wrong file, illegal action. Message is one line."""


class IllegalActionError(CfrlabError, ValueError):
    """An action that is not legal in the given state."""


class ParseError(CfrlabError, ValueError):
    """Malformed text: a card, a .game file, a match-state line, a log line."""


class FileMismatchError(CfrlabError):
    """A file made for another game or abstraction."""
