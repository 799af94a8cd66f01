"""What a person or a source said stays in the paper files; what the model computes lives apart
(issue 42): a refresh of the model changes a paper file only where a suggestion changes, a
contributor's pull request holds their paper alone, and the derived cache is never git's.

On copies of conftest's corpora, in a git repository of their own where a test asks what git
would see.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_corpus, survey
from test_review_screen import in_a_terminal

from generator.classify.model import STEP, train
from generator.classify.training import REFRESH_AFTER, refresh_advice
from generator.corpus.rejected import REJECTED_FILE, Rejected, rejected_text
from generator.corpus.store import load_corpus
from generator.corpus.taxonomy import TopicWeights

CACHE = ".survey-cache.json"


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo,
                            capture_output=True, text=True, check=True)
    return result.stdout


def changed(repo: Path) -> set[str]:
    """Every path git sees changed or new, untracked files included."""
    return {line[3:] for line in git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()}


def a_repository(tmp_path: Path, seeded_corpus: Path) -> Path:
    """The seeded corpus (313 papers nobody reviewed) with the project's model and the suggestions
    it makes, committed, with the project's .gitignore."""
    repo = tmp_path / "repo"
    corpus = shutil.copytree(seeded_corpus, repo / "corpus", ignore=shutil.ignore_patterns(".survey-*"))
    shutil.copy(ROOT / ".gitignore", repo / ".gitignore")
    shutil.copy(ROOT / "corpus" / "topic_model.yaml", corpus / "topic_model.yaml")
    assert survey("classify", "--write", "--corpus", str(corpus)).returncode == 0
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a survey")
    assert CACHE not in git(repo, "ls-files", "corpus")
    return repo


def exported(corpus: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    result = survey("export", "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    return {r["slug"]: r for r in json.loads(result.stdout)}


def test_a_refresh_changes_the_decided_papers_those_whose_suggestions_moved_and_the_model(
        tmp_path: Path, seeded_corpus: Path) -> None:
    """15 decisions, then `survey train` and `survey classify --write`: git sees the 15 decided
    files, the files whose suggested topics or tags changed (and nothing else of them), and the
    model file; not the papers whose confidence alone moved, nor the derived cache."""
    repo = a_repository(tmp_path, seeded_corpus)
    corpus = repo / "corpus"
    before = exported(corpus)
    queue = survey("review", "--list", "--corpus", str(corpus)).stdout.split("\n")
    decided = [line.split()[0] for line in queue[:15]]
    rows = [{"slug": slug, "topics": "none" if i % 3 else "parallelism"} for i, slug in enumerate(decided)]
    out = io.StringIO()
    writer = csv.DictWriter(out, ["slug", "topics"])
    writer.writeheader()
    writer.writerows(rows)
    (tmp_path / "d.csv").write_text(out.getvalue(), encoding="utf-8")
    assert survey("review", "--apply", str(tmp_path / "d.csv"), "--corpus", str(corpus)).returncode == 0
    assert changed(repo) == {f"corpus/papers/{slug}.yaml" for slug in decided}
    assert survey("train", "--no-labels", "--corpus", str(corpus)).returncode == 0
    assert survey("classify", "--write", "--corpus", str(corpus)).returncode == 0

    after = exported(corpus)
    def same(slug: str) -> bool:
        return (after[slug]["topics"], after[slug]["tags"]) == (before[slug]["topics"], before[slug]["tags"])

    moved = {f"corpus/papers/{slug}.yaml" for slug in after if slug not in decided and not same(slug)}
    assert moved and changed(repo) == {*(f"corpus/papers/{slug}.yaml" for slug in decided), *moved,
                                       "corpus/topic_model.yaml"}
    for path in moved:  # nothing but the suggestions
        old = yaml.safe_load(git(repo, "show", f"HEAD:{path}"))
        new = yaml.safe_load((repo / path).read_text(encoding="utf-8"))
        assert {k: v for k, v in old.items() if k not in ("topics", "tags")} == {
            k: v for k, v in new.items() if k not in ("topics", "tags")}
    confidence_alone = [slug for slug in after if slug not in decided and same(slug)
                        and after[slug].get("confidence") != before[slug].get("confidence")]
    assert confidence_alone  # the model moved them; their files stay as they were


def test_a_contributor_s_add_and_review_is_one_file(tmp_path: Path, seeded_corpus: Path) -> None:
    """`survey add`, then `survey review SLUG` on a terminal (a accepts): git sees the new paper's
    file and nothing else, and nothing tells the contributor to retrain."""
    repo = a_repository(tmp_path, seeded_corpus)
    corpus = repo / "corpus"
    added = survey("add", "--title", "Paged attention for serving LLMs", "--abstract",
                   "We serve large language models with a paged KV cache.", "--corpus", str(corpus))
    assert added.returncode == 0, added.stderr
    slug = "paged-attention-for-serving-llms"
    status, seen, _ = in_a_terminal("review", slug, "--corpus", str(corpus), end="0 skipped", keys=[
        ("survey review: paper 1 of 1", b"a"), ("the last paper of this sitting", b"q")])
    assert status == 0
    assert "1 decided" in seen and "survey train" not in seen and "classify" not in seen
    assert changed(repo) == {f"corpus/papers/{slug}.yaml"}
    assert "topics" in yaml.safe_load((corpus / "papers" / f"{slug}.yaml").read_text())["curated"]


def test_retraining_is_advised_once_enough_decisions_have_gathered(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "review")  # 2 papers reviewed
    model = corpus / "topic_model.yaml"
    text = model.read_text(encoding="utf-8")
    loaded = load_corpus(corpus)
    assert refresh_advice(loaded, loaded.taxonomy) is None  # a model that does not say what it learnt from
    model.write_text("decisions: 2\n" + text, encoding="utf-8")
    for rejected, advised in ((REFRESH_AFTER - 1, False), (REFRESH_AFTER, True)):
        entries = [Rejected(f"off-{i}", f"Off topic {i}", "Not this survey's.", "2026-11-29")
                   for i in range(rejected)]
        (corpus / REJECTED_FILE).write_text(rejected_text(entries), encoding="utf-8")
        loaded = load_corpus(corpus)
        advice = refresh_advice(loaded, loaded.taxonomy)
        assert (advice is not None) == advised
    assert advice == (f"survey review: {REFRESH_AFTER} decisions since the topic model was trained, enough "
                      "to change its suggestions: a maintainer refreshes it (`survey train`, then `survey "
                      "classify --write`; CONTRIBUTING.md, \"Refreshing the topic model\")")


def test_the_model_file_keeps_a_weight_while_the_new_fit_is_within_a_step(tmp_path: Path) -> None:
    """`survey train` writes weights in steps, and a weight as it was written while the new fit is
    within a step of it: the same papers and model give the same file, a small change few lines."""
    taxonomy = load_corpus(ROOT / "corpus").taxonomy
    papers = load_corpus(ROOT / "corpus").sorted_papers()[:120]
    docs, gold = [(p.title, p.abstract) for p in papers], [p.topics for p in papers]
    first = train(taxonomy, docs, gold)
    for w in first.values():
        assert all(round(v / STEP, 6) == round(v / STEP) for v in [w.bias, *w.weights.values()])
    assert train(taxonomy, docs, gold, previous=first) == first
    nudged = {t: TopicWeights(w.bias, {k: round(v + STEP * (0.4 if i % 2 else -0.4), 4) if i < 3 else v
                                       for i, (k, v) in enumerate(w.weights.items())})
              for t, w in first.items()}
    strong = {t: [k for k, v in w.weights.items() if abs(v) >= 3 * STEP][:3] for t, w in first.items()}
    on_steps = {t: TopicWeights(w.bias, {k: v for k, v in w.weights.items() if k not in strong[t]})
                for t, w in first.items()}
    again = train(taxonomy, docs, gold, previous=nudged)  # off the steps: the topic written afresh
    assert again == first and train(taxonomy, docs, gold, previous=on_steps) == first
    one_more = train(taxonomy, docs[:-1], gold[:-1], previous=first)
    differ = sum(one_more[t].weights.get(k) != v for t, w in first.items() for k, v in w.weights.items())
    assert differ < sum(len(w.weights) for w in first.values()) / 10


def test_the_model_file_is_marked_generated_for_github() -> None:
    attributes = (ROOT / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "corpus/topic_model.yaml linguist-generated=true" in attributes
    assert yaml.safe_load((ROOT / "corpus" / "topic_model.yaml").read_text())["decisions"] >= 0


def test_a_cache_that_git_tracks_is_refused_and_one_not_written_here_is_passed_over(
        tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "review")
    listed = survey("review", "--list", "--corpus", str(corpus))
    assert listed.returncode == 0 and (corpus / CACHE).is_file()
    for junk in ("[[[[", '{"format": 1, "model": 3}', json.dumps({"format": 1, "model": "", "topics": [],
                 "papers": {"x": ["a", "b", ["c"], "yes", "d"]}, "scores": {}})):
        (corpus / CACHE).write_text(junk, encoding="utf-8")
        again = survey("review", "--list", "--corpus", str(corpus))
        assert (again.returncode, again.stdout, again.stderr) == (0, listed.stdout, listed.stderr)
        assert json.loads((corpus / CACHE).read_text())["format"] == 1  # written again
    outside = tmp_path / "outside.json"
    outside.write_text("mine", encoding="utf-8")
    (corpus / CACHE).unlink()
    (corpus / CACHE).symlink_to(outside)
    again = survey("review", "--list", "--corpus", str(corpus))
    assert again.stdout == listed.stdout and outside.read_text() == "mine"  # never followed
    (corpus / CACHE).unlink()
    git(tmp_path, "init", "-q")
    survey("review", "--list", "--corpus", str(corpus))
    git(tmp_path, "add", "-f", f"corpus/{CACHE}")
    git(tmp_path, "commit", "-qm", "a cache, committed")
    for command in (("check",), ("review", "--list")):
        result = survey(*command, "--corpus", "corpus", cwd=tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.splitlines()[-1].endswith(
            f"corpus/{CACHE}: tracked by git, so not left by an interrupted survey command; nothing in it is "
            f"applied: remove it (git rm -r corpus/{CACHE})")


@pytest.mark.parametrize("stale", [False, True])
def test_the_exports_show_the_model_s_confidence_from_the_cache_or_computed(tmp_path: Path,
                                                                            stale: bool) -> None:
    """The exports' numbers (the build's, through the same classify/derived.attach) are the
    model's whether the cache holds them or not (a fresh clone)."""
    corpus = make_corpus(tmp_path / "corpus", "review")
    assert survey("review", "--list", "--corpus", str(corpus)).returncode == 0
    if stale:
        (corpus / CACHE).unlink()
    records = exported(corpus)
    assert records["arithmetic-sampling-parallel-diverse-decoding-for-large-language"]["confidence"] == {
        "parallelism": 0.62}


@pytest.mark.parametrize(("workflow", "job", "cache", "scoring"), [
    ("deploy.yml", "build", "actions/cache@", ["mkdocs build"]),
    # a pull request starts from main's cache: saved here, it would serve that pull request alone
    ("pull-request.yml", "check", "actions/cache/restore@", ["survey check --review", "mkdocs build"]),
])
def test_the_workflows_keep_the_derived_cache_between_their_runs(
        workflow: str, job: str, cache: str, scoring: list[str]) -> None:
    """A fresh checkout has no cache: without one kept from the last run, each deploy and each
    check of a pull request would score every paper nobody reviewed again."""
    text = (ROOT / ".github" / "workflows" / workflow).read_text(encoding="utf-8")
    steps = yaml.safe_load(text)["jobs"][job]["steps"]
    restored = [i for i, s in enumerate(steps) if s.get("uses", "").startswith(cache)]
    assert len(restored) == 1 and steps[restored[0]]["with"]["path"] == f"corpus/{CACHE}"
    assert steps[restored[0]]["with"]["restore-keys"] == "survey-derived-"  # the deploy's, of main
    for command in scoring:
        assert restored[0] < next(i for i, s in enumerate(steps) if s.get("run", "").startswith(command))
