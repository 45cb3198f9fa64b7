"""A run's grade: failed, pass or not graded, the same from the runner's objects and from run.json."""

from aiperf_lab.labs.grading import grade_of_record, grade_run
from aiperf_lab.labs.runner import CheckResult


def _check(status: str, detail: str = "", id_: str = "c") -> CheckResult:
    return CheckResult(id_, "text", "x > 0", status, detail)


def test_a_non_zero_exit_fails_whatever_the_checks_say():
    grade = grade_run(2, False, [_check("skipped", "the workload exited 2")])
    assert (grade.word, grade.reason) == ("failed", "the workload exited 2")


def test_a_cancelled_run_fails_even_with_exit_zero():
    assert grade_run(0, True, [_check("pass")]).word == "failed"


def test_one_failing_check_fails_the_run_and_names_it():
    grade = grade_run(0, False, [_check("pass", id_="a"), _check("fail", id_="b"), _check("error", id_="c")])
    assert grade.word == "failed"
    assert "2 of 3" in grade.reason and "b, c" in grade.reason


def test_all_skipped_is_not_graded_with_the_reason():
    grade = grade_run(0, False, [_check("skipped", "needs a GPU (this run had none)")] * 2)
    assert grade.word == "not graded"
    assert "needs a GPU" in grade.reason


def test_passed_and_skipped_checks_pass_and_count_the_skipped():
    grade = grade_run(0, False, [_check("pass"), _check("skipped", "applies to the optimized variant")])
    assert grade.word == "pass"
    assert grade.reason == "1 of 2 checks passed (1 not evaluated)"


def test_old_records_without_a_grade_are_graded_from_their_checks():
    record = {"exit_code": 0, "cancelled": False, "checks": [{"id": "a", "status": "fail", "detail": "1 < 2"}]}
    assert grade_of_record(record).word == "failed"
    assert grade_of_record({"exit_code": 0, "checks": []}).word == "not graded"
    assert grade_of_record({"grade": "pass", "grade_reason": "3 of 3 checks passed"}).reason == "3 of 3 checks passed"
    assert grade_of_record({"exit_code": "0"}).word == "failed"
