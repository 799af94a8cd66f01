"""`survey train` learns from the survey's own decisions (issue 35 item 5): the papers whose topics a
person reviewed, a no-topic decision and a rejected paper included, beside the labels files'
tune papers, never from a labels file's held-out part."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from conftest import ROOT, make_corpus, survey

from generator.classify.quality import Doc
from generator.classify.suggest import suggest
from generator.classify.training import training_set
from generator.corpus.rejected import Rejected
from generator.corpus.store import load_corpus, paper_text

TOPICS = ("parallelism", "quantization", "serving", "kernels")


def decided_corpus(tmp: Path, n: int = 48) -> Path:
    """The first n papers of the committed corpus that have a topic, and 12 without, as reviewed."""
    corpus = make_corpus(tmp / "corpus", "empty")
    (corpus / "papers").mkdir()
    real = load_corpus(ROOT / "corpus").sorted_papers()
    chosen = [p for p in real if p.topics][:n] + [p for p in real if not p.topics][:12]
    for paper in chosen:
        assert "topics" in paper.curated
        (corpus / paper.file).write_text(paper_text(paper), encoding="utf-8")
    return corpus


def doc(key: str, gold: tuple[str, ...], split: str, source: str = "labels") -> Doc:
    return Doc(key, f"title {key}", f"abstract {key}", gold, split, (gold, gold), source)


def test_the_corpus_decisions_join_the_labels_and_a_held_out_paper_is_never_one(tmp_path: Path) -> None:
    corpus = load_corpus(decided_corpus(tmp_path))
    papers = corpus.sorted_papers()
    held, tune, undecided = papers[0], papers[1], papers[2]
    undecided.curated = [c for c in undecided.curated if c != "topics"]
    none = next(p for p in papers if not p.topics)
    labelled = [doc(held.slug, held.topics and (held.topics[0],), "heldout"),
                doc(tune.slug, ("kernels",), "tune"),  # the curator's decision wins over the label
                doc("2401.00001", ("serving",), "tune", "other"),
                doc("2401.00002", (), "heldout", "other")]
    corpus.rejected = [Rejected("radio", "Radio astronomy pipelines", "Radio telescopes.", "2026-11-28",
                                "2401.00003"),
                       Rejected("held", "A held-out paper rejected", "Rejected.", "2026-11-28", "2401.00002")]
    data = training_set(corpus, labelled)
    keys = [e.key for e in data.examples]
    assert keys[:2] == [tune.slug, "2401.00001"]  # the labels' order first
    assert held.slug not in keys and undecided.slug not in keys and data.held_out == 2
    assert "2401.00002" not in keys  # held out by a labels file, rejected or not
    by_key = {e.key: e for e in data.examples}
    assert by_key[tune.slug].topics == tuple(tune.topics) and by_key[tune.slug].origin == "corpus"
    assert by_key[none.slug].topics == () and by_key[none.slug].known is None  # no topic: a decision
    assert by_key["2401.00003"].topics == () and by_key["2401.00003"].origin == "rejected"
    # a labels file speaks for the topics it has papers of; the corpus for every topic
    assert by_key["2401.00001"].known == frozenset({"serving"})
    assert data.count("corpus") == len(papers) - 2 and data.labelled == {"other": 1}


def confidence(corpus: Path, title: str, abstract: str, topic: str) -> float:
    s = suggest(load_corpus(corpus).taxonomy, title, abstract)
    return next(v.confidence for v in s.topics if v.id == topic)


def test_train_learns_what_the_curator_decided(tmp_path: Path) -> None:
    """Reviewed papers alone (--no-labels) make a model; a curator who decides that pipeline papers
    have no topic makes the next model doubt a pipeline paper."""
    corpus = decided_corpus(tmp_path)
    result = survey("train", "--no-labels", "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "60 papers (60 reviewed papers of the corpus)" in result.stdout
    assert "refreshes the suggestions" in result.stdout
    model = yaml.safe_load((corpus / "topic_model.yaml").read_text(encoding="utf-8"))
    assert set(model["topics"]) <= set(TOPICS) and "parallelism" in model["topics"]
    title = "Pipeline parallelism across GPUs"
    abstract = "We schedule pipeline stages of a model on many GPUs."
    before = confidence(corpus, title, abstract, "parallelism")
    assert before > 0.5
    for path in sorted((corpus / "papers").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "pipeline" in (data["title"] + data["abstract"]).lower():
            data["topics"] = []
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    assert survey("train", "--no-labels", "--corpus", str(corpus)).returncode == 0
    assert confidence(corpus, title, abstract, "parallelism") < before - 0.2


def test_default_labels_whose_texts_are_missing_are_left_out_and_named(tmp_path: Path) -> None:
    """A clone without ../shared/real (or a survey of its own) trains on its decisions; a labels
    file named on the command line must be read."""
    corpus = decided_corpus(tmp_path)
    missing = tmp_path / "no-texts-here"
    result = survey("train", "--texts", str(missing), "--corpus", str(corpus), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    for labels in ("tests/data/topic_labels.yaml", "tests/data/topic_labels_arxiv.yaml"):
        assert f"survey train: left out {labels} (the texts of its papers" in result.stdout
    assert "60 papers (60 reviewed papers of the corpus)" in result.stdout
    named = survey("train", "--labels", "tests/data/topic_labels_arxiv.yaml", "--texts", str(missing),
                   "--corpus", str(corpus), cwd=ROOT)
    assert named.returncode == 1 and "were not found (--texts)" in named.stderr
    assert "Traceback" not in named.stderr


def test_train_where_no_labels_file_is_says_it_learns_from_the_decisions_alone(tmp_path: Path) -> None:
    """Run outside the project (a survey folder of its own): the model it writes knows only the
    corpus's decisions, where the shipped one knew 2,577 labelled papers; the curator is told."""
    corpus = decided_corpus(tmp_path)
    result = survey("train", "--corpus", str(corpus), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "survey train: no labels file here (tests/data/topic_labels.yaml, "
        "tests/data/topic_labels_arxiv.yaml): the model learns from the corpus's own decisions alone "
        "(--labels FILE reads one)\n")
    assert "no labels file here" not in survey("train", "--no-labels", "--corpus", str(corpus)).stdout


def test_a_topic_no_labels_file_knows_is_learnt_from_the_decisions_alone(tmp_path: Path) -> None:
    """A fifth topic added to the taxonomy: the labels file's papers are no evidence against it."""
    corpus = decided_corpus(tmp_path)
    taxonomy = yaml.safe_load((corpus / "taxonomy.yaml").read_text(encoding="utf-8"))
    taxonomy["topics"].append({"id": "pipelines", "name": "Pipelines", "summary": "Pipelines.",
                               "description": "Papers about pipeline parallelism.", "rules": []})
    (corpus / "taxonomy.yaml").write_text(yaml.safe_dump(taxonomy, sort_keys=False), encoding="utf-8")
    for path in sorted((corpus / "papers").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "pipeline" in data["title"].lower():
            data["topics"] = [*data["topics"], "pipelines"]
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    labels = tmp_path / "labels.yaml"
    real = load_corpus(ROOT / "corpus")
    have = {p.name for p in (corpus / "papers").iterdir()}
    rows = [{"slug": p.slug, "topics": list(p.topics), "split": "tune"}
            for p in real.sorted_papers() if p.file.split("/")[-1] not in have][:60]
    labels.write_text(yaml.safe_dump({"name": "old", "papers": rows}), encoding="utf-8")
    shutil.copytree(ROOT / "corpus" / "papers", tmp_path / "all", dirs_exist_ok=True)
    for row in rows:  # the labelled seed papers, in the corpus but not reviewed
        path = tmp_path / "all" / f"{row['slug']}.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data["curated"] = [c for c in data["curated"] if c != "topics"]
        (corpus / "papers" / path.name).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                                                   encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    result = survey("train", "--labels", str(labels), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "the 60 tune papers of old" in result.stdout
    model = yaml.safe_load((corpus / "topic_model.yaml").read_text(encoding="utf-8"))
    assert "pipelines" in model["topics"]
    assert confidence(corpus, "Pipeline parallelism for training", "Pipeline stages on GPUs.",
                      "pipelines") > 0.5


def exported(corpus: Path, slug: str) -> dict:  # type: ignore[type-arg]
    result = survey("export", "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    return next(r for r in json.loads(result.stdout) if r["slug"] == slug)


def test_after_decisions_train_then_classify_refreshes_what_nobody_reviewed(tmp_path: Path) -> None:
    """The learning loop of docs/contributing.md: decide, `survey train`, `survey classify --write`;
    the papers nobody reviewed get the new model's topics (and the site and the queue its
    confidence), the reviewed ones stay as decided."""
    corpus = decided_corpus(tmp_path)
    waiting = "pipeline-parallel-scheduling-on-gpus"
    text = {"slug": waiting, "title": "Pipeline parallel scheduling on GPUs",
            "abstract": "We schedule the pipeline stages of one model on many GPUs.",
            "topics": [], "tags": []}
    (corpus / "papers" / f"{waiting}.yaml").write_text(yaml.safe_dump(text, sort_keys=False),
                                                       encoding="utf-8")
    assert survey("train", "--no-labels", "--corpus", str(corpus)).returncode == 0
    assert survey("classify", "--write", "--corpus", str(corpus)).returncode == 0
    first = exported(corpus, waiting)
    assert "parallelism" in first["topics"] and first["confidence"]["parallelism"] > 0.5
    reviewed = {p.name: p.read_bytes() for p in (corpus / "papers").iterdir() if p.name != f"{waiting}.yaml"}
    for path in sorted((corpus / "papers").glob("*.yaml")):  # the curator: pipelines are out of scope
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "pipeline" in (data["title"] + data["abstract"]).lower() and path.name != f"{waiting}.yaml":
            data["topics"] = []
            path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
            reviewed[path.name] = path.read_bytes()
    assert survey("train", "--no-labels", "--corpus", str(corpus)).returncode == 0
    assert survey("classify", "--write", "--corpus", str(corpus)).returncode == 0
    after = exported(corpus, waiting)
    assert after["topics"] != first["topics"] or after["confidence"]["parallelism"] < 0.6
    assert {p.name: p.read_bytes() for p in (corpus / "papers").iterdir() if p.name in reviewed} == reviewed
    listed = survey("review", "--list", "--corpus", str(corpus))
    assert listed.returncode == 0 and listed.stdout.split()[0] == waiting


def test_a_rejected_paper_teaches_the_model_it_is_out_of_scope(tmp_path: Path) -> None:
    """Issue 37: "not in this survey's scope" is learnt from corpus/rejected.yaml."""
    from generator.corpus.rejected import REJECTED_FILE, rejected_text

    corpus = decided_corpus(tmp_path)
    title = "Distributed radio astronomy pipelines on GPU clusters"
    abstract = "We process radio telescope data with a distributed pipeline on GPU clusters of many nodes."
    assert survey("train", "--no-labels", "--corpus", str(corpus)).returncode == 0
    before = confidence(corpus, title, abstract, "parallelism")
    rejected = [Rejected(f"radio-{i}", f"{title} {i}", abstract, "2026-11-28") for i in range(8)]
    (corpus / REJECTED_FILE).write_text(rejected_text(rejected), encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    result = survey("train", "--no-labels", "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "68 papers (60 reviewed papers of the corpus and 8 rejected papers)" in result.stdout
    assert confidence(corpus, title, abstract, "parallelism") < before - 0.2
