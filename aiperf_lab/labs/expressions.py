"""Checks are small expressions over a run's measurements ("pinned_gb_s >= 1.5 * pageable_gb_s").

Evaluated with a whitelist over Python's syntax tree: names, numbers, strings, arithmetic,
comparisons, and/or/not, and min/max/abs. Nothing else runs. The explanation shows every name's
value, so a learner sees the numbers behind a pass or a fail.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}
_FUNCTIONS = {"min": min, "max": max, "abs": abs}


class CheckError(Exception):
    """The expression uses something not allowed, or a measurement the run did not produce."""


def parse(expression: str) -> ast.Expression:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise CheckError(f"not a valid check expression: {expression!r} ({exc.msg})") from None
    for node in ast.walk(tree):
        allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Name, ast.Load, ast.Constant,
                   ast.Call, ast.And, ast.Or, ast.Not, ast.USub, *_BINARY, *_COMPARE)
        if not isinstance(node, allowed):
            raise CheckError(f"{type(node).__name__} is not allowed in a check: {expression!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
            raise CheckError(f"only min, max and abs may be called in a check: {expression!r}")
    return tree


def names(expression: str) -> set[str]:
    return {n.id for n in ast.walk(parse(expression)) if isinstance(n, ast.Name) and n.id not in _FUNCTIONS}


def evaluate(expression: str, values: dict[str, Any]) -> tuple[bool, str]:
    """(passed, "name=value ... => left op right") for an expression over the measurements."""
    tree = parse(expression)
    missing = sorted(n for n in names(expression) if values.get(n) is None)
    if missing:
        raise CheckError(f"the run did not measure {', '.join(missing)}")

    def run(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return run(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = run(node.operand)
            return -operand if isinstance(node.op, ast.USub) else not operand
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](run(node.left), run(node.right))
        if isinstance(node, ast.BoolOp):
            results = [run(v) for v in node.values]
            return all(results) if isinstance(node.op, ast.And) else any(results)
        if isinstance(node, ast.Compare):
            left = run(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = run(comparator)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Call):
            return _FUNCTIONS[node.func.id](*(run(a) for a in node.args))
        raise CheckError(f"cannot evaluate {type(node).__name__}")

    try:
        passed = bool(run(tree))
    except ZeroDivisionError:
        raise CheckError(f"division by zero in {expression!r}") from None
    shown = ", ".join(f"{n}={fmt(values[n])}" for n in sorted(names(expression)))
    return passed, shown


def fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else repr(value) if isinstance(value, str) else str(value)
