"""Errors that mean "the input or the environment is wrong" (exit code 2), as opposed to bugs."""


class InputError(Exception):
    """A file, argument or environment problem the user can fix; its message is one line for stderr."""


class NotAProfile(InputError):
    """The file exists but is not a profile format we read."""


class ToolMissing(InputError):
    """An external tool (nsys, ncu) is needed for this input and is not on the PATH."""


class MissingData(InputError):
    """The profile lacks the data a report needs (nsys prints "SKIPPED: ..." for such a report)."""
