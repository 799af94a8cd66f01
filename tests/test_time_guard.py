"""The time the rules may take (issue 31): a guard leaves a timer it found running, whether
the caller's or an enclosing guard's, and the rules of one command have a budget in all, so
that a rule just under the budget of a paper cannot stretch an import of 9,000 papers to hours."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
from conftest import ROOT

from generator.classify import suggest
from generator.classify.rules import SlowRule, time_guard
from generator.core.errors import CorpusError
from generator.corpus.taxonomy import Taxonomy


class Timeout(Exception):
    pass


@pytest.fixture()
def timer() -> Iterator[list[int]]:
    """A timer of the caller's own, as pytest-timeout or a server sets one: its handler raises."""
    fired: list[int] = []

    def handler(signum: int, frame: object) -> None:
        fired.append(signum)
        raise Timeout

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        yield fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_guard_leaves_the_callers_timer_running(timer: list[int]) -> None:
    signal.setitimer(signal.ITIMER_REAL, 30)
    with time_guard(1):
        pass
    left, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 20 < left <= 30


def test_the_callers_timer_fires_inside_a_guard(timer: list[int]) -> None:
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    with pytest.raises(Timeout), time_guard(30):
        busy(30)
    assert timer == [signal.SIGALRM]


def test_a_nested_guard_does_not_disarm_the_outer_one() -> None:
    with pytest.raises(SlowRule), time_guard(0.3):
        with time_guard(30):
            pass
        busy(30)


@pytest.fixture()
def slow_rules(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every paper's rules take 1.9 s, just under the 2 s a paper may take, on a clock of the
    test's own (no time passes); returns the papers they ran on."""
    now = [0.0]
    ran: list[int] = []

    def slow(*args: object) -> suggest.Suggestion:
        ran.append(1)
        now[0] += 1.9
        return suggest.Suggestion(topics=(), tags=())

    monkeypatch.setattr(suggest, "_spent", [0.0, 0], raising=False)
    monkeypatch.setattr(suggest, "_clock", lambda: now[0], raising=False)
    monkeypatch.setattr(suggest, "_suggest", slow)
    return ran


def test_the_rules_of_one_command_have_a_budget_in_all(slow_rules: list[int]) -> None:
    taxonomy = Taxonomy.load(ROOT / "corpus" / "taxonomy.yaml", "corpus/taxonomy.yaml")
    with pytest.raises(CorpusError, match=r"the rules ran over this command's budget \(60 s and 50 ms a "
                                          r"paper\) at the paper 'T'"):
        suggest.suggest_all(taxonomy, [("T", "A.")] * 9000, workers=1)
    assert len(slow_rules) == 33  # 33 x 1.9 s > 60 s + 33 x 50 ms
