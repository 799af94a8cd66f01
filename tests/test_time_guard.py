"""The time the rules may take (issue 31): a guard takes the process's one real-time timer and
refuses to run inside another, and the rules of one command have a budget in all, so that a
rule just under the budget of a paper cannot stretch an import of 9,000 papers to hours."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from conftest import ROOT

from generator.classify.rules import time_guard
from generator.classify.suggest import Budget, suggest_all
from generator.core.errors import CorpusError
from generator.corpus.taxonomy import Taxonomy


@pytest.fixture()
def timer() -> Iterator[None]:
    """A timer of the caller's own, as pytest-timeout or a server sets one."""
    previous = signal.signal(signal.SIGALRM, lambda *args: None)
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_guard_refuses_to_run_inside_another_timer_and_leaves_it_running(timer: None) -> None:
    with pytest.raises(RuntimeError, match="inside another real-time timer"), time_guard(1):
        pass
    left, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 20 < left <= 30


def test_the_rules_of_one_command_have_a_budget_in_all() -> None:
    """Every paper's rules take 1.9 s, just under the 2 s a paper may take, on a clock of the
    test's own (no time passes)."""
    now = [0.0]

    def clock() -> float:
        now[0] += 1.9  # read as each paper starts and ends: each takes 1.9 s
        return now[0]

    budget = Budget(clock=clock)
    taxonomy = Taxonomy.load(ROOT / "corpus" / "taxonomy.yaml", "corpus/taxonomy.yaml")
    with pytest.raises(CorpusError, match=r"the rules ran over this command's budget \(60 s and 50 ms a "
                                          r"paper\) at the paper 'T'"):
        suggest_all(taxonomy, [("T", "A.")] * 9000, workers=1, budget=budget)
    assert budget.papers == 34  # the 34th is refused: 33 x 1.9 s > 60 s + 34 x 50 ms
