"""The commands that print a secret's value bare on the next line (a secret store's print, `cat` of a secret's file,
`printenv NAME` / `echo $NAME` of a secret-named variable): KUBECTL_SECRET_PRINT, read on a line's last 120 characters,
lower-cased (layouts._kubectl_secret_spans finds the value; assignments.VALUE_ON_NEXT_LINE holds such a line in a
stream)."""

from __future__ import annotations

import re


# A printed `kubectl get secret NAME -o jsonpath='{.data.KEY}' | base64 -d` (or its base64 value alone, or
# go-template's): the next line is the secret's value, printed bare (lower-cased text, a line's last 120 characters)
# The same for the other secret stores' commands that print a secret's value bare: `gcloud secrets versions access V
# --secret=NAME`, `aws secretsmanager get-secret-value ... --query SecretString --output text`, `vault kv get|read
# -field=F PATH`, 1Password's `op read op://...`, `az keyvault secret show ... --query value -o tsv`; and 1Password's
# `op item get X --fields F --reveal`, `doppler secrets get X --plain`, `pass show X`, `gopass show -o X`, macOS's
# `security find-generic-password ... -w`, Bitwarden's `bw get password X`, `sops -d --extract '["k"]' FILE`.
SECRET_PRINT_LITERALS = ("kubectl", "aws ", "versions access", "get-secret-value", "vault", "op read", "get-parameter",
                         "op item", "doppler", "pass ", "find-generic-password", "find-internet-password", "bw get",
                         "sops", "cat ", "printenv", "echo ", "config get", "-access-token", "-identity-token",
                         "signature:", "print(os.")
SECRET_PRINT_GATES = ("secret", "vault", "op://", "decryption", "pass ", "--reveal", "-password", "bw get",
                      "--extract", "passw", "cat ", "printenv ", "echo $", "echo \"$", "config get",
                      "-access-token", "-identity-token", "signature:", "print(os.")   # (every such command line holds one of these, lower-cased)
# A store's print goes to the terminal only where its stdout is not sent to a file (`> pw.txt`, `>> f`, `1> f`, `&> f`;
# `2> f`, `2>&1` and `>&2` still print) nor written to one by the tool (`--out-file=F`, gcloud's and 1Password's): after
# such a command, the next line (`saved`) is not the value. Read from each command's first word to the line's end.
_NOT_TO_A_FILE = r"(?![^\n]{0,240}?(?:(?:(?<![0-9>])|(?<=[ \t]1))>(?!&)|(?<![\w-])--out-?file(?![\w-])))"
# (a command's help: `gcloud auth print-access-token --help` prints its manual)
_NO_HELP = r"(?![^\n]{0,110}?(?<![\w-])(?:--help|-h)(?![\w-]))"
# A store's field that is not secret (`op read op://vault/item/username`, `vault kv get -field=username`,
# `op item get X --fields username --reveal`): its print is a user name, a host or an address.
_PLAIN_FIELDS = r"(?:username|user|user_?name|login|email|e-mail|url|website|host|hostname|server|port|database|title|type)"
_PLAIN_FIELD_LAST = r"(?![^\n]{0,110}?/" + _PLAIN_FIELDS + r"['\"]?[ \t]{0,4}\r?\n\Z)"
_PLAIN_FIELD_FLAG = r"(?![^\n]{0,110}?-field[ \t=]{1,4}['\"]?" + _PLAIN_FIELDS + r"(?![\w-]))"
# `pass X` (pass shows X without `show`), not its other commands (`pass ls`, `pass insert X`, `pass git push`) nor a flag
_PASS_NOT_SHOWN = (r"(?!(?:show|ls|list|find|search|grep|insert|add|edit|generate|rm|remove|delete|mv|rename|cp|copy|git|init"
                   r"|help|version|otp)(?![\w-]))")
_PLAIN_FIELDS_FLAG = r"(?![^\n]{0,110}?--fields?[ \t=]{1,4}['\"]?(?:label=)?" + _PLAIN_FIELDS + r"(?![\w,-]))"
# (sops's `--extract '["db"]["host"]'`: the last key of the path a plain field)
_PLAIN_FIELD_EXTRACT = (r"(?![^\n]{0,110}?--extract[ \t=]{1,4}['\"]?(?:\[[^\]\n]{1,64}\]){0,7}\[\\?[\"']" + _PLAIN_FIELDS
                        + r"\\?[\"']\](?!\[))")
# `cat` of one file that holds a secret alone (its print is the value): a Docker or Kubernetes secret mounted under
# /run/secrets/ or /var/run/secrets/ (not a service account's namespace or CA certificate), or a file whose name says
# password, secret or token, with no extension but .txt (`cat ~/.cache/huggingface/token`, `cat db_password.txt`; a
# `secrets.yaml` prints a document, a `token.json` an object: their own rules read them)
_SECRET_FILE = (r"['\"]?(?:(?:/var)?/run/secrets/(?![^\s'\"]{0,100}/(?:namespace|ca\.crt)['\"]?[ \t]{0,4}\r?\n\Z)[^\s'\"|;&<>]{1,100}"
                r"|[^\s'\"|;&<>]{0,100}?(?<![^/~ \t'\"_.-])[\w.-]{0,40}(?:passw(?:or)?d|secret|token)(?:\.txt)?)")
# `printenv NAME` and `echo $NAME` (`echo "${NAME}"`) of a variable whose name says secret (judged in code on
# PRINTED_ENV_NAME's name by is_secret_name; here only a name with a secret word's piece: a stream holds little else)
_ENV_NAME = r"(?=[a-z0-9_]{0,60}?(?:pass|pw|token|secret|key|cred|auth|cookie|jwt|otp))[a-z_][a-z0-9_]{0,63}(?![a-z0-9_])"
# (session 25: and Python's `print(os.environ["NAME"])`, `print(os.getenv("NAME"))`, `print(os.environ.get("NAME"))`, in
# `python -c "..."` or at a REPL's prompt: the value printed on the next line)
_PY_ENV_READ = r"print\(os\.(?:environ\[|environ\.get\(|getenv\()[ \t]{0,4}['\"]"
PRINTED_ENV_NAME = re.compile(r"(?:printenv[ \t]{1,4}|echo[ \t]{1,4}['\"]?\$\{?|" + _PY_ENV_READ + r")(?P<name>[a-z_][a-z0-9_]{0,63})"
                              r"(?:\}?[ \t'\"]{0,4}|['\"][ \t]{0,4}[\])][ \t]{0,4}\)[^\n]{0,40}?)\r?\n\Z")
KUBECTL_SECRET_PRINT = (r"(?:kubectl" + _NOT_TO_A_FILE + r"[ \t][^\n]{0,100}?secrets?[ \t][^\n]{0,100}?(?:\|[ \t]{0,4}base64[ \t]{1,4}(?:-d|-D|--decode)"
                        r"|(?:jsonpath|go-template|template)=[^\n]{0,80}?\.data[^\n]{0,80}?|[^\n]{0,100}?@base64d['\"]?)"
                        r"|kubectl" + _NOT_TO_A_FILE + r"[ \t]{1,4}view-secret[ \t][^\n]{0,100}?"
                        r"|get-parameters?" + _NOT_TO_A_FILE + r"[ \t](?=[^\n]{0,110}--with-decryption)(?=[^\n]{0,110}(?:--output|-o)[ \t=]{1,4}text)[^\n]{0,110}?"
                        r"|secrets" + _NOT_TO_A_FILE + r"[ \t]{1,4}versions[ \t]{1,4}access[ \t][^\n]{0,100}?"
                        r"|get-secret-value" + _NOT_TO_A_FILE + r"[ \t](?=[^\n]{0,100}secretstring)(?=[^\n]{0,110}(?:--output|-o)[ \t=]{1,4}text)[^\n]{0,110}?"
                        r"|vault" + _NOT_TO_A_FILE + _PLAIN_FIELD_FLAG + r"[ \t]{1,4}(?:kv[ \t]{1,4}get|read)[ \t](?=[^\n]{0,100}-field[ \t=])[^\n]{0,110}?"
                        r"|(?<![\w-])op" + _NOT_TO_A_FILE + _PLAIN_FIELD_LAST + r"[ \t]{1,4}read[ \t]{1,4}['\"]?op://[^\n]{0,100}?"
                        r"|keyvault" + _NOT_TO_A_FILE + r"[ \t]{1,4}secret[ \t]{1,4}show[ \t](?=[^\n]{0,100}value)(?=[^\n]{0,110}(?:--output|-o)[ \t=]{1,4}tsv)[^\n]{0,110}?"
                        r"|(?<![\w-])op" + _NOT_TO_A_FILE + _PLAIN_FIELDS_FLAG + r"[ \t]{1,4}item[ \t]{1,4}get[ \t](?=[^\n]{0,110}--fields?[ \t=])(?=[^\n]{0,110}--reveal)[^\n]{0,110}?"
                        r"|(?<![\w-])doppler" + _NOT_TO_A_FILE + r"[ \t]{1,4}secrets[ \t]{1,4}get[ \t](?=[^\n]{0,110}--plain)[^\n]{0,110}?"
                        r"|(?:^|(?<=\n)|(?<=[$#%>+;|&(\u276f]))[ \t]{0,4}(?:sudo[ \t]{1,4})?pass" + _NOT_TO_A_FILE + r"[ \t]{1,4}show[ \t][^\n]{0,100}?"
                        r"|(?:(?<=[$#%>+\u276f])[ \t]{1,4}(?:sudo[ \t]{1,4})?pass" + _NOT_TO_A_FILE + r"[ \t]{1,4}" + _PASS_NOT_SHOWN +
                        r"|(?:^|(?<=\n))[ \t]{0,4}(?:sudo[ \t]{1,4})?pass" + _NOT_TO_A_FILE + r"[ \t]{1,4}" + _PASS_NOT_SHOWN +
                        r"(?=[^\s/]{1,100}/))[\w@][^\s]{0,100}?"
                        r"|(?<![\w-])gopass" + _NOT_TO_A_FILE + r"[ \t]{1,4}show[ \t][^\n]{0,110}?"
                        r"|(?<![\w-])security" + _NOT_TO_A_FILE + r"[ \t]{1,4}find-(?:generic|internet)-password[ \t](?=[^\n]{0,110}(?<![\w-])-[a-z]{0,3}w(?![\w-]))[^\n]{0,110}?"
                        r"|(?<![\w-])bw" + _NOT_TO_A_FILE + r"[ \t]{1,4}get[ \t]{1,4}password[ \t][^\n]{0,100}?"
                        r"|(?<![\w-])cat" + _NOT_TO_A_FILE + r"[ \t]{1,4}" + _SECRET_FILE +
                        r"|(?<![\w-])sops" + _NOT_TO_A_FILE + _PLAIN_FIELD_EXTRACT + r"[ \t](?=[^\n]{0,110}(?<![\w-])(?:-d|--decrypt|decrypt)(?![\w-]))(?=[^\n]{0,110}--extract)[^\n]{0,110}?"
                        # (`aws configure get aws_secret_access_key`, `aws ecr get-login-password`: h22a)
                        r"|(?<![\w-])aws" + _NOT_TO_A_FILE + r"[ \t](?:[^\n]{0,100}?[ \t])?(?:configure[ \t]{1,4}get[ \t]{1,4}"
                        r"(?:[\w.-]{0,40}\.)?(?:aws_)?(?:secret_access_key|session_token)|ecr(?:-public)?[ \t]{1,4}get-login-password)"
                        r"(?![\w-])[^\n|>]{0,100}?"
                        # (`npm config get //registry/:_authToken`, yarn's and pnpm's: session 23)
                        r"|(?<![\w-])(?:npm|yarn|pnpm)" + _NOT_TO_A_FILE + r"[ \t]{1,4}config[ \t]{1,4}get[ \t][^\n]{0,100}?"
                        r"(?:_authtoken|_auth|_password|npmauthtoken)['\"]?"
                        # (a cloud CLI's access token: `gcloud auth [application-default] print-access-token`,
                        # `gcloud auth print-identity-token`, `az account get-access-token --query accessToken -o tsv`;
                        # botocore's DEBUG `botocore.auth:Signature:`, a request's SigV4 signature: session 24)
                        r"|(?<![\w-])gcloud" + _NOT_TO_A_FILE + _NO_HELP + r"[ \t](?:[^\n]{0,100}?[ \t])?auth[ \t]{1,4}(?:application-default[ \t]{1,4})?"
                        r"print-(?:access|identity)-token(?![\w-])[^\n|>]{0,100}?"
                        r"|(?<![\w-])az" + _NOT_TO_A_FILE + _NO_HELP + r"[ \t]{1,4}account[ \t]{1,4}get-access-token[ \t](?=[^\n]{0,110}(?:--output|-o)[ \t=]{1,4}tsv)[^\n|>]{0,110}?"
                        r"|botocore\.auth[^\n]{0,80}?(?<![\w-])signature:"
                        # (session 26: any signer's logger, a level word then its name: `DEBUG:app.auth:Signature:`,
                        # `DEBUG:myservice.signer:Signature:`, `[DEBUG] signer: Signature:`; a name there: `INFO:
                        # Signature:` then `valid` is a sentence's)
                        r"|(?<![\w-])(?:debug|info|warning)(?::|\][ \t]{1,4})[a-z_][\w.-]{0,80}:[ \t]{0,4}signature:"
                        r"|(?<![\w-])printenv" + _NOT_TO_A_FILE + r"[ \t]{1,4}" + _ENV_NAME +
                        r"|(?<![\w-])echo" + _NOT_TO_A_FILE + r"[ \t]{1,4}['\"]?\$\{?" + _ENV_NAME + r"\}?"
                        r"|(?<![\w.])" + _PY_ENV_READ + _ENV_NAME + r"['\"][ \t]{0,4}[\])][ \t]{0,4}\)"
                        r"(?![^\n]{0,40}?(?<![0-9>])>(?![&>]))[^\n]{0,40}?"
                        r")[ \t'\"]{0,4}\r?\n\Z")
KUBECTL_SECRET_LINE = re.compile(KUBECTL_SECRET_PRINT)
