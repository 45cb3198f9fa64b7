"""The lab catalog: modules and exercises, read from catalog.yaml and checked when loaded."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from aiperf_lab.labs import expressions

CATALOG = Path(__file__).with_name("catalog.yaml")
WALKTHROUGHS = Path(__file__).with_name("walkthroughs")
ANSWERS = WALKTHROUGHS / "answers"
PROFILERS = ("none", "nsys", "ncu", "torch")


class CatalogError(Exception):
    """catalog.yaml is malformed: a bug in the package, reported with the exercise and field."""


@dataclass(frozen=True)
class Check:
    id: str
    text: str
    expr: str
    profile: str | None = None   # only evaluated when the run used this profiler (tables it needs)
    gpu_only: bool = True        # CPU runs (--size tiny) skip it
    variant: str | None = None   # only evaluated for runs of this variant
    info: tuple[str, ...] = ()   # measurements shown beside the verdict, never graded ("n/a" when absent)


@dataclass(frozen=True)
class Knob:
    """A what-if knob (`labs run EX --set name=value`): its type, range and default, passed to the
    workload as `--set name=value` and recorded in run.json."""
    name: str
    kind: str                    # "int" or "float"
    minimum: float
    maximum: float
    default: float
    help: str
    variants: tuple[str, ...] = ()   # the variants it changes; () for all of them

    def applies_to(self, variant: str) -> bool:
        return not self.variants or variant in self.variants

    def parse(self, text: str) -> int | float:
        """The value, or ValueError with one line saying what is allowed."""
        try:
            value: int | float = int(text) if self.kind == "int" else float(text)
        except ValueError:
            raise ValueError(f"{self.name} takes an {self.kind}, not {text!r}") from None
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{self.name} must be between {self.minimum:g} and {self.maximum:g} "
                             f"(default {self.default:g}), not {text}")
        return value


MAX_SHORT_TITLE = 18   # the Labs tree at 80 columns: "│   ├── ex01 [cpu] " and this fill its 37 columns


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Exercise:
    id: str
    module: str
    title: str
    topic: str
    difficulty: int
    chapters: tuple[str, ...]
    walkthrough: str
    workload: str
    variants: tuple[Variant, ...]
    checks: tuple[Check, ...]
    needs_gpu: bool = True
    cpu_size: bool = False               # the workload runs with --size tiny on the CPU
    profile: dict[str, Any] = field(default_factory=dict)  # per profiler: preset, kernel_regex, launch_count...
    launcher: str = "python"             # "torchrun": one process per visible GPU
    min_gpus: int = 1
    knobs: tuple[Knob, ...] = ()
    short_title: str = ""                # what the console's tree shows where the title does not fit

    def knob(self, name: str, variant: str | None = None) -> Knob:
        """The knob called `name`; with a variant, only one that changes that variant (KeyError naming
        the knobs that do)."""
        for knob in self.knobs:
            if knob.name == name:
                if variant is not None and not knob.applies_to(variant):
                    mine = ", ".join(k.name for k in self.knobs if k.applies_to(variant)) or "none"
                    raise KeyError(f"{name} changes only the {' and '.join(knob.variants)} variant of {self.id}, "
                                   f"not {variant}; the knobs of {variant}: {mine}")
                return knob
        offered = ", ".join(k.name for k in self.knobs) or "none"
        raise KeyError(f"{self.id} has no knob {name!r}; its knobs: {offered}")

    @property
    def default_variant(self) -> Variant:
        return self.variants[0]

    def variant(self, name: str | None) -> Variant:
        if name is None:
            return self.default_variant
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(f"{self.id} has no variant {name!r}; it has {', '.join(v.name for v in self.variants)}")

    def walkthrough_text(self) -> str:
        return (WALKTHROUGHS / self.walkthrough).read_text(encoding="utf-8")

    def answers_text(self) -> str | None:
        """The written answers to the walkthrough's questions (walkthroughs/answers/<file>), or None."""
        path = ANSWERS / self.walkthrough
        return path.read_text(encoding="utf-8") if path.is_file() else None


@dataclass(frozen=True)
class Module:
    id: str
    title: str
    exercises: tuple[Exercise, ...]


def _require(entry: dict, key: str, where: str) -> Any:
    if key not in entry:
        raise CatalogError(f"{where}: missing {key!r}")
    return entry[key]


def parse_catalog(document: dict) -> list[Module]:
    modules = []
    seen: set[str] = set()
    for m in _require(document, "modules", "catalog"):
        module_id = str(_require(m, "id", "module"))
        module_title = f"{module_id} {_require(m, 'title', f'module {module_id}')}"
        exercises = []
        for e in _require(m, "exercises", f"module {module_id}"):
            where = f"exercise {e.get('id', '?')}"
            exercise_id = str(_require(e, "id", where))
            if exercise_id in seen:
                raise CatalogError(f"{where}: id used twice")
            seen.add(exercise_id)
            variants = tuple(Variant(str(name), str(_require(spec, "description", f"{where} variant {name}")),
                                     tuple(str(a) for a in spec.get("args", ())))
                             for name, spec in _require(e, "variants", where).items())
            checks = tuple(Check(str(_require(c, "id", where)), str(_require(c, "text", where)),
                                 str(_require(c, "expr", where)), c.get("profile"), bool(c.get("gpu_only", True)),
                                 c.get("variant"), tuple(str(n) for n in c.get("info") or ()))
                           for c in e.get("checks", ()))
            for check in checks:
                expressions.parse(check.expr)  # a malformed check fails at load, not mid-run
                if not all(name.isidentifier() for name in check.info):
                    raise CatalogError(f"{where}: check {check.id}'s info names a measurement that cannot exist")
                if check.variant is not None and check.variant not in {v.name for v in variants}:
                    raise CatalogError(f"{where}: check {check.id} names an unknown variant {check.variant!r}")
                if check.profile is not None and check.profile not in PROFILERS:
                    raise CatalogError(f"{where}: check {check.id} names an unknown profiler {check.profile!r}")
            difficulty = int(_require(e, "difficulty", where))
            if not 1 <= difficulty <= 5 or not variants:
                raise CatalogError(f"{where}: difficulty 1-5 and at least one variant")
            walkthrough = str(_require(e, "walkthrough", where))
            if not (WALKTHROUGHS / walkthrough).is_file():
                raise CatalogError(f"{where}: walkthrough {walkthrough} is missing")
            profile = dict(e.get("profile") or {})
            unknown = set(profile) - set(PROFILERS)
            if unknown:
                raise CatalogError(f"{where}: unknown profilers {sorted(unknown)}")
            from aiperf_lab.labs.analyses import ANALYSES
            for recipe in profile.values():
                missing = [a for a in (recipe or {}).get("analyses", ()) if a not in ANALYSES]
                if missing:
                    raise CatalogError(f"{where}: unknown analyses {missing}")
            knobs = _knobs(e.get("knobs") or {}, where, {v.name for v in variants})
            launcher = str(e.get("launcher", "python"))
            if launcher not in ("python", "torchrun"):
                raise CatalogError(f"{where}: launcher must be python or torchrun")
            short_title = str(_require(e, "short_title", where))
            if not 0 < len(short_title) <= MAX_SHORT_TITLE:
                raise CatalogError(f"{where}: short_title must be 1 to {MAX_SHORT_TITLE} characters")
            exercises.append(Exercise(exercise_id, module_title, str(_require(e, "title", where)),
                                      str(_require(e, "topic", where)), difficulty,
                                      tuple(str(c) for c in e.get("chapters", ())), walkthrough,
                                      str(_require(e, "workload", where)), variants, checks,
                                      bool(e.get("needs_gpu", True)), bool(e.get("cpu_size", False)), profile,
                                      launcher, int(e.get("min_gpus", 2 if launcher == "torchrun" else 1)),
                                      knobs, short_title))
        modules.append(Module(module_id, module_title, tuple(exercises)))
    return modules


def _knobs(spec: dict, where: str, variant_names: set[str]) -> tuple[Knob, ...]:
    knobs = []
    for name, k in spec.items():
        applies = tuple(str(v) for v in k.get("variants") or ())
        if set(applies) - variant_names:
            raise CatalogError(f"{where}: knob {name} names unknown variants {sorted(set(applies) - variant_names)}")
        kind = str(_require(k, "type", f"{where} knob {name}"))
        if kind not in ("int", "float"):
            raise CatalogError(f"{where}: knob {name} has type {kind!r}; int or float")
        low, high, default = (float(_require(k, key, f"{where} knob {name}")) for key in ("min", "max", "default"))
        if not low <= default <= high:
            raise CatalogError(f"{where}: knob {name}'s default {default:g} is outside {low:g}..{high:g}")
        knobs.append(Knob(str(name), kind, low, high, default, str(_require(k, "help", f"{where} knob {name}")),
                          applies))
    return tuple(knobs)


@lru_cache(maxsize=1)
def load_catalog() -> tuple[Module, ...]:
    # libyaml's loader where PyYAML has it: the pure-Python one takes ~0.2 s of the console's start-up
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(parse_catalog(yaml.load(CATALOG.read_text(encoding="utf-8"), Loader=loader)))


def all_exercises() -> list[Exercise]:
    return [e for m in load_catalog() for e in m.exercises]


def find_exercise(exercise_id: str) -> Exercise:
    matches = [e for e in all_exercises() if e.id == exercise_id or e.id.startswith(exercise_id + "-")]
    if not matches:
        raise KeyError(f"no exercise {exercise_id!r}: give an id or its start, as 01-ex01 "
                       f"(python -m aiperf_lab.labs list shows them)")
    if len(matches) > 1:
        raise KeyError(f"{exercise_id!r} is ambiguous: {', '.join(e.id for e in matches)}")
    return matches[0]


def list_labs() -> list[dict[str, Any]]:
    """The catalog as `aiperf-console --list-labs` prints it."""
    return [{"module": e.module, "id": e.id, "title": e.title, "difficulty": e.difficulty, "topic": e.topic}
            for e in all_exercises()]
