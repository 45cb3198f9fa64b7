"""docs/lab-results.md's tables from lab run records, one source per machine.

    python benchmarks/lab_results.py SOURCE[=MACHINE] [SOURCE[=MACHINE] ...]

A SOURCE is a runs folder (the run folders with their run.json) or a .tar.gz of one, as
benchmarks/verify_issue13.sh writes it (issue13_runs.tar.gz). MACHINE names the machine in the
tables; without it, each run's machine is read from its run.json: the GPU the workload used (NVML
name without "NVIDIA "), "2x ..." when it used two. Prints markdown:

1. one row per exercise, variant and profile, one column per machine: the grade, and "differs" where
   the machines disagree;
2. one row per run (the newest of each exercise, variant, profile and machine), with a machine column:
   grade and reason, seconds, energy, and every check with the numbers behind it;
3. the checks whose status differs between machines (each needs a reason in its text).
"""

from __future__ import annotations

import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiperf_lab.labs.history import PastRun, list_runs  # noqa: E402


@dataclass(frozen=True)
class Row:
    machine: str
    run: PastRun

    @property
    def key(self) -> tuple[str, str, str]:
        r = self.run.run_record
        return r.exercise[:7], r.variant, r.profile


def machine_of(run: PastRun) -> str:
    """The GPU(s) the workload used, as a short name: "H100 80GB HBM3", "2x H200"; "no GPU" otherwise."""
    r = run.run_record
    name = str(r.measurements.get("gpu_name") or "")
    if not name:
        names = [g.get("name") for g in r.device.get("gpus", []) if isinstance(g, dict) and g.get("name")]
        name = names[0] if names else ""
    if not name:
        return "no GPU"
    name = name.removeprefix("NVIDIA ")
    used = r.measurements.get("gpus_used") or len(r.device.get("used_gpus") or []) or 1
    return f"{used}x {name}" if isinstance(used, int) and used > 1 else name


def read_source(spec: str, scratch: Path) -> list[Row]:
    """The runs of one SOURCE[=MACHINE]; a tarball is unpacked under scratch first."""
    path_text, _, label = spec.partition("=")
    path = Path(path_text)
    if path.is_file() and path.name.endswith((".tar.gz", ".tgz")):
        target = scratch / f"source{len(list(scratch.iterdir()))}"
        target.mkdir()
        try:
            with tarfile.open(path) as archive:
                # only plain files and folders inside the target, whatever the archive holds
                for member in archive.getmembers():
                    if member.name.startswith("/") or ".." in Path(member.name).parts or not (
                            member.isfile() or member.isdir()):
                        raise SystemExit(f"{path}: refusing the archive member {member.name!r}")
                archive.extractall(target, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        except (tarfile.TarError, OSError) as exc:
            raise SystemExit(f"{path}: not a readable .tar.gz ({exc})") from None
        folders = sorted({p.parent.parent for p in target.rglob("run.json")})
    elif path.is_dir():
        folders = [path]
    else:
        raise SystemExit(f"{path}: neither a runs folder nor a .tar.gz of one")
    rows = []
    for folder in folders:
        rows += [Row(label or machine_of(run), run) for run in list_runs(folder)]
    return rows


def newest(rows: list[Row]) -> dict[tuple[str, str, str, str], Row]:
    """The newest run of each exercise, variant, profile and machine (folder names start with the UTC time)."""
    chosen: dict[tuple[str, str, str, str], Row] = {}
    for row in sorted(rows, key=lambda r: r.run.folder.name):
        chosen[(*row.key, row.machine)] = row
    return chosen


def _cell(text: object, limit: int = 400) -> str:
    text = str(text).replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _machine_order(machines: set[str]) -> list[str]:
    """One-GPU machines first, then by name (H100 before H200)."""
    return sorted(machines, key=lambda m: (m.split("x ", 1)[0] if "x " in m[:3] else "1", m))


def grade_matrix(chosen: dict[tuple[str, str, str, str], Row]) -> str:
    machines = _machine_order({k[3] for k in chosen})
    keys = sorted({k[:3] for k in chosen})
    lines = ["| exercise | variant | profile | " + " | ".join(machines) + " | |",
             "|---|---|---|" + "---|" * len(machines) + "---|"]
    for key in keys:
        grades = [chosen[(*key, m)].run.grade.word if (*key, m) in chosen else "" for m in machines]
        ran = {g for g in grades if g}
        differs = "differs" if len(ran) > 1 else ""
        lines.append(f"| {' | '.join(key)} | " + " | ".join(g or "not run" for g in grades) + f" | {differs} |")
    return "\n".join(lines)


def run_table(chosen: dict[tuple[str, str, str, str], Row]) -> str:
    lines = ["| exercise | variant | profile | machine | grade | s | energy (J) | checks, with the numbers behind them |",
             "|---|---|---|---|---|---|---|---|"]
    order = _machine_order({k[3] for k in chosen})
    for key in sorted(chosen, key=lambda k: (k[:3], order.index(k[3]))):
        row = chosen[key]
        r, grade = row.run.run_record, row.run.grade
        joules = r.energy.get("joules")
        energy = f"{joules:.0f}" if isinstance(joules, (int, float)) else ""
        checks = "; ".join(f"{c.id} **{c.status}** ({c.detail})" if c.status in ("pass", "fail", "error")
                           else f"{c.id} {c.status}" for c in r.checks)
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {row.machine} | {grade.word} ({_cell(grade.reason, 120)}) "
                     f"| {r.seconds:g} | {energy} | {_cell(checks, 1500)} |")
    return "\n".join(lines)


def differing_checks(chosen: dict[tuple[str, str, str, str], Row]) -> str:
    statuses: dict[tuple[str, str, str, str], dict[str, str]] = {}
    for (exercise, variant, profile, machine), row in chosen.items():
        for check in row.run.run_record.checks:
            statuses.setdefault((exercise, variant, profile, check.id), {})[machine] = check.status
    lines = [f"- {e} {v} ({p}) `{c}`: " + ", ".join(f"{m} {s}" for m, s in sorted(by.items()))
             for (e, v, p, c), by in sorted(statuses.items())
             if len({s for s in by.values() if s in ("pass", "fail", "error")}) > 1]
    return "\n".join(lines) if lines else "None: every check that was evaluated on more than one machine agreed."


def report(specs: list[str]) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        rows = [row for spec in specs for row in read_source(spec, Path(scratch))]
        if not rows:
            raise SystemExit("no run.json found in " + ", ".join(specs))
        chosen = newest(rows)
        return "\n\n".join(["### Grades per machine", grade_matrix(chosen),
                            "### Every run, with the numbers behind each check", run_table(chosen),
                            "### Checks whose status differs between machines", differing_checks(chosen)]) + "\n"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        sys.stdout.write(report(argv))
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(f"lab_results.py: {exc.code}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
