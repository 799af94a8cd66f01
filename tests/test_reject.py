"""Rejecting a paper (issue 37): it leaves the corpus through the all-or-nothing writer, is
recorded in corpus/rejected.yaml, and `survey check` refuses a corpus that holds it again or a
malformed rejected file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import survey

from generator.corpus.rejected import rejection_files
from generator.corpus.store import load_corpus
from generator.corpus.writes import write_files

DAY = "2026-11-28"


def test_a_rejected_paper_leaves_its_file_and_every_listing_and_is_recorded(
        small: Path, tmp_path: Path) -> None:
    corpus = shutil.copytree(small, tmp_path / "c")
    slug = next(slug for slug, where in sorted(load_corpus(corpus).listings_of().items()) if len(where) > 1)
    loaded = load_corpus(corpus)
    paper = loaded.papers[slug]
    written = write_files(loaded, rejection_files(loaded, [(slug, "not ML systems")], DAY))
    assert f"papers/{slug}.yaml" in written and "rejected.yaml" in written
    assert not (corpus / "papers" / f"{slug}.yaml").exists()
    after = load_corpus(corpus)
    assert slug not in after.papers and slug not in after.listings_of()
    assert len(after.papers) == len(loaded.papers) - 1
    assert [(r.slug, r.title, r.abstract, r.arxiv, r.rejected, r.reason) for r in after.rejected] == [
        (slug, paper.title, paper.abstract, paper.arxiv, DAY, "not ML systems")]
    assert survey("check", "--corpus", str(corpus)).returncode == 0


def test_check_refuses_a_paper_that_is_also_rejected(small: Path, tmp_path: Path) -> None:
    corpus = shutil.copytree(small, tmp_path / "c")
    loaded = load_corpus(corpus)
    paper = next(p for p in loaded.sorted_papers() if p.arxiv)
    write_files(loaded, rejection_files(loaded, [(paper.slug, None)], DAY))
    (corpus / paper.file).write_text(yaml.safe_dump(paper.to_dict(), sort_keys=False), encoding="utf-8")
    result = survey("check", "--corpus", str(corpus))
    assert result.returncode == 1
    assert (f"papers/{paper.slug}.yaml: entry {paper.slug}: field 'slug': rejected earlier (entry "
            f"{paper.slug} of ") in result.stderr
    assert ("rejected.yaml, same slug): delete this file, or that entry to bring the paper back"
            in result.stderr)
    # the same paper under another slug is found by its arXiv id, or its title
    data = paper.to_dict()
    (corpus / paper.file).unlink()
    data["slug"] = "another-slug"
    moved = corpus / "papers" / "another-slug.yaml"
    moved.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert "same title" in survey("check", "--corpus", str(corpus)).stderr
    # and a write that would bring it back is refused, as check would refuse the corpus
    moved.unlink()
    loaded = load_corpus(corpus)
    with pytest.raises(Exception, match=r"nothing written: .*rejected earlier"):
        write_files(loaded, [(paper.file, (small / paper.file).read_text(encoding="utf-8"))])


BAD = [
    ("- slug: x\n", "rejected.yaml: entry x: field 'title': is required"),
    ("slug: x\n",
     "rejected.yaml: must be a list of rejected papers, each {slug, title, abstract, rejected, ...}"),
    ("- slug: a\n  title: T\n  abstract: A\n  rejected: '2026-11-28'\n  reason: <script>x</script>\n",
     "rejected.yaml: entry a: field 'reason': contains markup (an HTML tag, comment or declaration); "
     "write it as plain text"),
    ("- slug: a\n  title: T\n  abstract: A\n  rejected: '2026-13-01'\n",
     "rejected.yaml: entry a: field 'rejected': '2026-13-01' is not a date YYYY-MM-DD (the day it was "
     "rejected)"),
    ("- slug: a\n  title: T\n  abstract: A\n  rejected: '2026-11-01'\n"
     "- slug: a\n  title: U\n  abstract: B\n  rejected: '2026-11-02'\n",
     "rejected.yaml: entry a: field 'slug': rejected twice (also entry #1): keep one"),
    ("- slug: a\n  title: T\n  abstract: A\n  rejected: '2026-11-01'\n  why: no\n",
     "rejected.yaml: entry a: field 'why': unknown field; known fields: slug, title, alternate_titles, "
     "abstract, arxiv, date, rejected, reason"),
]


@pytest.mark.parametrize(("text", "error"), BAD)
def test_check_refuses_a_malformed_rejected_file_in_one_line_each(
        small: Path, tmp_path: Path, text: str, error: str) -> None:
    corpus = shutil.copytree(small, tmp_path / "c")
    (corpus / "rejected.yaml").write_text(text, encoding="utf-8")
    result = survey("check", "--corpus", str(corpus), cwd=corpus)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == error


def test_the_rejected_file_is_no_link(small: Path, tmp_path: Path) -> None:
    corpus = shutil.copytree(small, tmp_path / "c")
    (corpus / "rejected.yaml").symlink_to("/etc/passwd")
    result = survey("check", "--corpus", str(corpus), cwd=corpus)
    assert result.returncode == 1
    assert "rejected.yaml: is a symbolic link; not read" in result.stderr


def test_the_site_counts_rejected_papers_and_shows_none_of_them(small: Path, tmp_path: Path) -> None:
    """The generated pages (survey build: the Markdown a site is built from) hold no rejected
    paper, and the statistics page counts them; a rejected entry's text is data, never markup."""
    corpus = shutil.copytree(small, tmp_path / "c")
    loaded = load_corpus(corpus)
    paper = loaded.sorted_papers()[0]
    write_files(loaded, rejection_files(loaded, [(paper.slug, None)], DAY))
    with (corpus / "rejected.yaml").open("a", encoding="utf-8") as fh:
        fh.write("- slug: zz-hostile\n  title: <script>alert(1)</script> Rejected Marker {{ x }}\n"
                 "  abstract: '[a link](javascript:alert(1)) $x$'\n  rejected: '2026-11-28'\n")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    out = tmp_path / "out"
    result = survey("build", "--out", str(out), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    pages = {p: p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file()}
    assert not any("Rejected Marker" in text or paper.title in text or f"papers/{paper.slug}" in text
                   for text in pages.values())
    stats = next(text for p, text in pages.items() if p.name == "statistics.md")
    assert "2 more papers were reviewed and left out: not in the survey's scope." in stats


def test_the_rejected_file_is_refused_at_the_entry_past_its_bound(small: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command reads the rejected file and matches each paper of a source against it:
    100,000 entries took 14 s of each `survey add` (audit J8). Refused as its entries are read."""
    from generator.corpus import rejected

    monkeypatch.setattr(rejected, "MAX_REJECTED", 2)
    corpus = shutil.copytree(small, tmp_path / "c")
    entry = "- {slug: a%d, title: T%d, abstract: A, rejected: '2026-11-01'}\n"
    (corpus / "rejected.yaml").write_text("".join(entry % (i, i) for i in range(2)), encoding="utf-8")
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    (corpus / "rejected.yaml").write_text("".join(entry % (i, i) for i in range(50)), encoding="utf-8")
    result = survey("check", "--corpus", str(corpus), cwd=corpus)
    assert result.stderr.splitlines()[0] == ("rejected.yaml:3:3: a list of more than 2 items, the most "
                                             "a list of this file may hold; not read")
