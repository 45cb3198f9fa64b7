"""Forms a log shows over several lines (a .netrc block, a token file's cat, a secret decoded by base64 -d, a Kubernetes
Secret's data, better-exceptions' arrows, a notebook's source lines), each with the secret it must not keep: the cases
the launcher-prefix tests put behind each prefix."""

PW, HP = "Qx7vR2mZ9pLk4Tn", "Winter2024!blue"
B64URL = "cG9zdGdyZXM6Ly91OldpbnRlcjIwMjQhYmx1ZUBoL2Ri"   # base64 of postgres://u:Winter2024!blue@h/db
WANDB = "7654321fedcba0987654321fedcba09876543210"

FORMS = {
    ".netrc block": (f"machine api.example.com\n  login bob\n  password {HP}\n", HP),
    "wandb .netrc": (f"machine api.wandb.ai\n  login user\n  password {WANDB}\n", WANDB),
    "cat of a token file": (f"$ cat ~/.cache/huggingface/token\n{PW}{PW}\n", PW + PW),
    "kubectl jsonpath | base64 -d": (f"$ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{HP}\n", HP),
    "a Secret's data": (f"apiVersion: v1\ndata:\n  DB_URL: {B64URL}\nkind: Secret\n", B64URL),
    "better-exceptions arrows": (f"    conn = connect(host, pw)\n                   │     └ '{HP}'\n"
                                 "                   └ 'db.internal'\n", HP),
    "notebook source lines": (f'   "source": [\n    "import os\\n",\n    "os.environ[\\"HF_TOKEN\\"] = \\"{PW}\\"\\n"\n   ]\n',
                              PW),
}
