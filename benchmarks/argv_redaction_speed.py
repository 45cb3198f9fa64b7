"""What triage spends on the workload's command line before the workload starts and when it writes the bundle:
argv_secret_values (the known secrets), the Redactor built with them, and Redactor.argv of the command, of
the workload's argv and of triage's own arguments (three distinct lists, each redacted once). CPU seconds,
median of --repeat runs, for long command lines of ordinary ML arguments with a few secrets among them.

    python benchmarks/argv_redaction_speed.py [--args 20000] [--repeat 5] [--random-names 300000]

--random-names N also counts, of N random strings of letters and digits per length (what a password generator or
an API gives), how many names_a_model reads as a CamelCase model name: a secret after `-p` / `-a` on a program
triage does not know that it would keep.

Run it with PYTHONPATH set to another checkout to time that checkout's redaction the same way."""

from __future__ import annotations

import argparse
import random
import statistics
import time

import secrets
import string

from aiperf_lab.triage.redact import Redactor, argv_secret_values

ORDINARY = [["--lr", "3e-4"], ["--name", "run17"], ["data.path=/data/imagenet/train"], ["--resume", "3f2a9c1e0b7d4e6a8c5f1a2d6e9b0c3f"],
            ["-p", "Llama3Base"], ["--model", "meta-llama/Llama-3-8B"], ["trainer.max_steps=1000"], ["--seed", "17"],
            ["--config", '{"lr": 0.1, "tokenizer": {"pad_token": "<pad>"}}'], ["--output_dir", "./out/run1"]]
SECRETS = [["--hf-token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"], ["db.password=S3cr3t!x9"],
           ["-H", "Authorization: Bearer Zq81xkP2mW7vLr4t"], ["sqlplus", "scott/Tiger7-Scott!@orcl"]]


def command_line(n_args: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    argv = ["torchrun", "--nproc_per_node=8", "train.py"]
    while len(argv) < n_args:
        roll = rng.random()
        # half the words are distinct (shard lists, per-run names), as long command lines' are
        argv += (rng.choice(SECRETS) if roll < 0.01 else [f"/data/shards/train-{len(argv):06d}.tar"] if roll < 0.4
                 else [f"--tag=exp{len(argv)}"] if roll < 0.5 else rng.choice(ORDINARY))
    return argv


def triage_argv_work(command: list[str]) -> int:
    """As pipeline.py does it: the known values (of the command and of triage's whole command line), the Redactor,
    then the three lists written to the bundle."""
    arguments = ["--duration", "60", "--output", "triage-out", "--", *command]
    known = list(dict.fromkeys(argv_secret_values(command) + argv_secret_values(arguments)))
    redactor = Redactor({"PATH": "/usr/bin"}, extra_secrets=known)
    return sum(len(redactor.argv(argv)) for argv in (command, ["nsys", "profile", *command], arguments))


def cpu_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--args", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--random-names", type=int, default=0)
    options = parser.parse_args()
    if options.random_names:
        from aiperf_lab.triage.redact import names_a_model   # (this checkout's; older ones lack it)
        alphabet = string.ascii_letters + string.digits
        for length in (8, 12, 16, 22, 32):
            kept = sum(names_a_model("".join(secrets.choice(alphabet) for _ in range(length)))
                       for _ in range(options.random_names))
            print(f"random {length:2d} characters read as a model name: {kept} of {options.random_names}")
        return
    for n in (100, 2000, options.args):
        command = command_line(n)
        script = ["bash", "-c", " && ".join(" ".join(command[k:k + 40]) for k in range(0, len(command), 40))]
        for label, argv in ((f"{len(command)} arguments", command), (f"bash -c of {len(command)} words", script)):
            print(f"{label:>28}: {cpu_seconds(lambda: triage_argv_work(argv), options.repeat):.3f} s CPU")


if __name__ == "__main__":
    main()
