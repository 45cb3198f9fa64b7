"""Whether a secret-named assignment is Python's source, not a value (a traceback's line, a module or a docstring
printed): a statement whose value is a reference, a syntax highlighter's style entry, a parameter's annotation, a
docstring's field, a block's opener; and the whole name a keyword belongs to (_name_before)."""

from __future__ import annotations

import re

from .names import NO_VOWEL_OR_FOUR_CONSONANTS, _reads_as_identifier, _secret_name_cached, name_words, reads_as_words


NAME_RUN_REVERSED = re.compile(r"[A-Za-z0-9_.-]{0,64}")


def _name_before(text: str, start: int, end: int) -> str:
    """The whole name a keyword found at start belongs to: the name characters before it (64 at most)
    through end (`per_token_latency_ms` for the "token" in it, `outputTokenThroughput`)."""
    before = NAME_RUN_REVERSED.match(text[max(0, start - 64):start][::-1]).end()
    return text[start - before:end]



# Python's source (a traceback's line, a module printed): an indented statement `name = value` that ends its line, the
# value no literal but a reference whose words read as a program's names (_reads_as_identifier: words with vowels,
# digits only at a word's end; a generated value, a UUID or base64 has none of these shapes):
# - an attribute of self or cls (`token = self.stream.current`), a Pygments token type (`token = Name.Variable`), a
#   snake_case name of letters (`token = value_str`), or the variable the attribute is named for or that names a secret
#   (`self.password = password`); a camel-case or dotted word (`mySecretPass`, `correct.Horse`) may be a password;
# - a parsed token's attribute that is not its text (markdown-it's `token.markup = markerChar`, `token.map = lines`,
#   `token.info = "entity"`; `token.content = x` unquoted, or a call): a parser's token object, not a credential.
PYTHON_STATEMENT_END = re.compile(r"[ \t]*(?:#[^\n]{0,256})?\r?(?:\n|\Z)")
PYGMENTS_TYPES = ("Token", "Name", "Keyword", "Comment", "String", "Number", "Operator", "Punctuation", "Generic", "Text",
                  "Literal", "Error", "Whitespace", "Other", "Escape")
REFERENCE_PATH = re.compile(r"(?:self|cls)(?:\.[A-Za-z_][A-Za-z_]{0,63}){1,8}"
                            r"|(?:" + "|".join(PYGMENTS_TYPES) + r")(?:\.[A-Z][A-Za-z]{2,31}){1,4}"
                            r"|[a-z]{2,32}(?:_[a-z]{2,32}){1,8}")
LOWER_NAME = re.compile(r"_{0,2}[a-z]{2,32}(?:_[a-z]{2,32}){0,8}")
CALLED_NAME = re.compile(r"[a-z_][A-Za-z_]{0,63}(?:\.[A-Za-z_][A-Za-z_]{0,63}){0,8}(?:\((?:[a-z_][A-Za-z_]{0,63})?)?")
PARSED_TOKEN_ATTRIBUTES = frozenset({"markup", "info", "level", "map", "children", "tag", "attrs", "nesting", "block",
                                     "hidden", "meta", "type", "lineno", "line", "col", "pos", "kind"})
_STATEMENT_INDENT = re.compile(r"[ \t]{2,64}")
# (after a name, an operator or a conditional goes on with the expression; `[` opens a subscript)
EXPRESSION_GOES_ON = re.compile(r"[ \t]{1,4}(?:[-+*/%|&<>]|==|!=|=[ \t]|(?:if|or|and|else|not|in|is)[ \t])")
SUBSCRIPTED_NAME = re.compile(r"(?P<name>[a-z_][A-Za-z_]{0,63}(?:\.[A-Za-z_][A-Za-z_]{0,63}){0,8})\[")


def _python_reference(text: str, start: int, rest_end: int, value_start: int, value_end: int, quoted: bool,
                      name: str | None = None) -> bool:
    """Whether `name = value` at start is an indented Python statement whose value is a reference, not a secret (see
    PYTHON_STATEMENT_END). (name: _name_before's, when the caller has it)"""
    if name is None:
        name = _name_before(text, start, rest_end)
    name_start = rest_end - len(name)
    line_start = text.rfind("\n", 0, name_start) + 1
    if _STATEMENT_INDENT.fullmatch(text, line_start, name_start) is None or not text.startswith(" = ", rest_end):
        return False
    value = text[value_start:value_end]
    end = value_end + 1 if quoted and text[value_end:value_end + 1] in "\"'" else value_end
    ends_line = PYTHON_STATEMENT_END.match(text, end) is not None
    owner, _, attribute = name.rpartition(".")
    if owner and (attribute in PARSED_TOKEN_ATTRIBUTES or attribute == "content" and not quoted):
        if not owner.rpartition(".")[2].lower().endswith("token"):
            return False
        if quoted:   # `token.info = "entity"`, `token.markup = "```"`
            return ends_line and (value.isalpha() and value.islower() and reads_as_words(value) or len(set(value)) == 1)
        # (a call goes on past the value: `token.content = state.getLines(start + 1, end)`; an expression too:
        # `token.markup = marker * (cnt + 1)`, `token.info = label if ... else ...`, `token.map = lines = [a, 0]`)
        call = CALLED_NAME.fullmatch(value)
        if call is not None:
            return (ends_line or "(" in value or EXPRESSION_GOES_ON.match(text, value_end) is not None) and (
                _reads_as_identifier(value.replace("(", ".")))
        # a subscript: `token.content = text[lastPos:pos]`, `token.info = state.src[start : end]`
        subscript = SUBSCRIPTED_NAME.match(value)
        return subscript is not None and _reads_as_identifier(subscript.group("name"))
    if not ends_line or quoted:
        return False
    if value == attribute.lstrip("_") or LOWER_NAME.fullmatch(value) is not None and _secret_name_cached(value):
        return True   # `self.password = password`, `self._passphrase = password`: a variable passed on
    if value in PYGMENTS_TYPES:   # `token = Error`, `token = Punctuation`: a lexer's token type (a name ending TOKEN)
        return name_words(name)[-1:] == ["token"]
    return REFERENCE_PATH.fullmatch(value) is not None and _reads_as_identifier(value)


# A syntax highlighter's style table (Pygments' styles, Textual's and Rich's themes): `    Token.Keyword: "bold",`,
# `    Token: '#f8f8f2',`, `    Token: FG_DEFAULT,` -- an indented dict entry under Pygments' token type (Token and its
# capitalised sub-types), its value a style: colours and style words, quoted, or a constant's name.
PYGMENTS_TOKEN_TYPE = re.compile(r"Token(?:\.[A-Z][A-Za-z]{0,31}){0,4}")
STYLE_WORD = (r"(?:(?:bg|border):)?(?:#[0-9a-fA-F]{3,8}|\$[a-z][a-z_-]{1,31}|ansi[a-z_]{0,24}|(?:no)?(?:bold|italic|underline"
              r"|inherit|roman|sans|mono|reverse|blink|dim|strike)|(?:bright_?)?(?:red|green|blue|yellow|magenta|cyan|white"
              r"|black|gray|grey|default))?")
STYLE_STRING = re.compile(r"(?P<q>[\"'])" + STYLE_WORD + r"(?:[ ]{1,4}" + STYLE_WORD + r"){0,8}(?P=q),?[ \t]*(?:#[^\n]{0,256})?\r?(?:\n|\Z)")
STYLE_CONSTANT = re.compile(r"(?P<name>[A-Z]{2,16}(?:_[A-Z]{2,16}){0,4}|[a-z]{3,16}(?:_[a-z]{2,16}){0,4}),[ \t]*"
                            r"(?:#[^\n]{0,256})?\r?(?:\n|\Z)")


def _pygments_style_entry(text: str, start: int, rest_end: int, value_start: int, value_end: int) -> bool:
    """Whether `Token.X: style,` at start is an entry of a style table (see PYGMENTS_TOKEN_TYPE)."""
    name = PYGMENTS_TOKEN_TYPE.match(text, start, rest_end)
    if name is None or name.end() != rest_end or text[start - 1:start] not in (" ", "\t"):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if _STATEMENT_INDENT.fullmatch(text, line_start, start) is None:
        return False
    if text[value_start - 1] in "\"'":
        return STYLE_STRING.match(text, value_start - 1) is not None
    constant = STYLE_CONSTANT.match(text, value_start)
    return constant is not None and not any(len(piece) > 3 and NO_VOWEL_OR_FOUR_CONSONANTS.search(piece.lower())
                                            for piece in constant.group("name").split("_"))


# Python's signatures and docstrings: a parameter's annotation in a `def` line (`def push(self, token: Token) ->
# None:`, `token_list: list[Token])`): a type, its words a program's (no digits); a docstring's field whose value begins
# a sentence (`:param cookies: (optional) Dict or CookieJar ...`, `:param sign_password: The passphrase for ...`).
DEF_BEFORE = re.compile(r"[ \t]{0,64}(?:async[ \t]{1,4})?def[ \t]{1,4}[A-Za-z_]\w{0,127}\(")
TYPE_EXPRESSION = re.compile(r"(?:[A-Z][A-Za-z_]{0,63}|(?:list|dict|set|tuple|type|frozenset)(?=\[))"
                             r"(?:\.[A-Za-z_][A-Za-z_]{0,63}){0,4}(?:\[[A-Za-z_., \[\]|]{0,128}\])?")
DOCSTRING_FIELD = re.compile(r":(?:param|parameter|arg|argument|key|keyword|type|ivar|cvar|var|vartype|raises?)"
                             r"(?:[ \t]{1,4}[\w.\[\], |]{1,64})?[ \t]{1,4}\Z")


# Python's annotated assignment, a statement of its own (`self.token: Token | None = None`, `self.passwords: Dict[str,
# AuthInfo] = {}`, `statements_pass: list[ast.stmt] = [...]`): a type (names and brackets, `|` unions), then ` = `.
_ANNOTATION_TYPE = r"[A-Za-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){0,4}(?:\[[\w., \[\]|]{0,160}\])?"
ANNOTATED_ASSIGNMENT = re.compile(rf"(?P<type>{_ANNOTATION_TYPE}(?: \| {_ANNOTATION_TYPE}){{0,4}}) = ")


def _python_signature_or_field(text: str, start: int, rest_end: int, value_start: int, value_end: int,
                               name: str | None = None) -> bool:
    """Whether `name: value` at start is a parameter's type in a `def` line or a docstring's field (see DEF_BEFORE).
    (name: _name_before's, when the caller has it)"""
    if name is None:   # (none of the three forms where the line up to the keyword holds neither ":" nor "def" and no
        # annotation follows: the whole name, 64 characters back at most, is not read)
        line = text.rfind("\n", max(0, start - 320), start) + 1 or max(0, start - 320)
        if (text.find(":", line, start) < 0 and text.find("def", line, start) < 0
                and ANNOTATED_ASSIGNMENT.match(text, value_start) is None):
            return False
        name = _name_before(text, start, rest_end)
    name_start = rest_end - len(name)
    # (the line's start looked for in the 256 characters read: on a long line a search back to the text's start at
    # each match made the text's time grow with the square of the line)
    before = text[text.rfind("\n", max(0, name_start - 256), name_start) + 1 or max(0, name_start - 256):name_start]
    if before.endswith(" ") and DOCSTRING_FIELD.search(before) is not None:
        return _describes(text, value_start, value_end)
    if not before.strip(" \t") and (annotation := ANNOTATED_ASSIGNMENT.match(text, value_start)) is not None:
        kind = annotation.group("type")   # (a type's names hold no digit: `Never31`, `shadow_903` are values)
        return annotation.end("type") >= value_end and _reads_as_identifier(kind) and not any(map(str.isdigit, kind))
    if "def" not in before or DEF_BEFORE.match(before) is None:
        return False
    value = text[value_start:value_end].rstrip("),:")
    return TYPE_EXPRESSION.fullmatch(value) is not None and _reads_as_identifier(value)


DESCRIPTION_WORDS = re.compile(r"\(?[A-Za-z][a-z]{1,31}\)?|\(?[A-Z][A-Za-z]{1,31}\)?")
SENTENCE_NEXT = re.compile(r" {1,2}\(?[A-Za-z][a-z]{1,31}[),.:]?(?: |\r?\n|\Z)")


def _describes(text: str, value_start: int, value_end: int) -> bool:
    """A docstring field's value that begins a sentence: a word (maybe in brackets), then another word."""
    return (DESCRIPTION_WORDS.fullmatch(text, value_start, value_end) is not None
            and _reads_as_identifier(text[value_start:value_end].strip("()"))
            and SENTENCE_NEXT.match(text, value_end) is not None)


# A Python statement that opens a block with a colon ending its line (`if self.credentials:`, `class Cookie:`)
PYTHON_BLOCK_OPENER = re.compile(r"[ \t]{0,64}(?:if|elif|while|for|with|def|class|async|match|except)[ \t(]")
RETURN_ANNOTATION = re.compile(r"->[ \t]{0,4}[\w.\[\], ]{0,64}\Z")   # (read up to a secret-named word: a return type)
