"""aiperf-console: entry point of the console.

`--list-labs` prints the lab catalog as JSON and exits; it imports no Textual so scripts and tests can
ask for the catalog cheaply. The interactive Textual app is not part of this release yet: without a
flag the command says so and points at the commands that do exist.
"""

from __future__ import annotations

import argparse
import json
import sys

from aiperf_lab.cli_support import OneLineParser, run_cli
from aiperf_lab.errors import InputError


def run(argv: list[str]) -> int:
    parser = OneLineParser(prog="aiperf-console", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list-labs", action="store_true",
                        help='print the lab catalog as JSON: [{"module","id","title","difficulty","topic"}]')
    args = parser.parse_args(argv)
    if args.list_labs:
        from aiperf_lab.labs.catalog import list_labs

        print(json.dumps(list_labs(), indent=2))
        return 0
    raise InputError("aiperf-console: the interactive console is not in this release yet; "
                     "use --list-labs, python -m aiperf_lab.labs, aiperf-stats or aiperf-triage")


def main(argv: list[str] | None = None) -> int:
    return run_cli("aiperf-console", run, argv)


if __name__ == "__main__":
    sys.exit(main())
