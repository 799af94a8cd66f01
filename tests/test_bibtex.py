"""BibTeX: `survey import refs.bib` and `survey enrich --from refs.bib`, on the four real
bibliographies of ../shared/bib/, on a hand-written one in every shape people write, and on
broken ones. The facts checked here were read off the files by eye, not from the reader."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from conftest import (
    FIXTURES,
    ROOT,
    make_corpus,
    make_project,
    mkdocs_build,
    real_bib_files,
    snapshot,
    soup,
    survey,
    unfill,
)

from generator.core.tex import bib_text, tex_parts
from generator.corpus.export import bib_file, bibtex, bibtex_keys
from generator.corpus.model import Paper
from generator.corpus.store import load_corpus
from generator.sources.readers import read_source

ODD = FIXTURES / "bibtex" / "odd.bib"
DAY = {"SOURCE_DATE_EPOCH": "1795000000"}  # 2026-11-18
ZERO = "zero-memory-optimizations-toward-training-trillion-parameter"


@pytest.mark.parametrize(("tex", "shown"), [
    (r"J{\'e}gou, H{\'e}rve", "Jégou, Hérve"),
    (r"Mart{\'\i}n and Ko{\c{c}} and Ay{\c s}e and {\L}ukasz and Gro\ss e",
     "Martín and Koç and Ayşe and Łukasz and Große"),
    (r"{Le Cun} and Les {N}ouvelles {I}d{\'e}es", "Le Cun and Les Nouvelles Idées"),
    (r"John {W}iley \& {S}ons, pages 122--131---all", "John Wiley & Sons, pages 122–131—all"),
    (r"An image is worth $16\times 16$ words", r"An image is worth $16\times 16$ words"),
    (r"emerging $\{$AI$\}$ applications", "emerging {AI} applications"),
    (r"50\% of \{x\} in C\# costs \$5 with a\_b", "50% of {x} in C# costs $5 with a_b"),
    (r"\textit{a \textbf{{GPU}s}} {\em b} \emph{c}", "a GPUs b c"),
    (r"see~\url{http://a.org/~u--v} or \href{http://b.org}{this}", "see http://a.org/~u--v or this (http://b.org)"),
    (r"\ours{} beats \cite{dao} at ``speed''", r"\ours{} beats \cite{dao} at “speed”"),  # as written
    (r"e.g.\ this \LaTeX{} \ldots", "e.g. this LaTeX …"),
    ("<kernel> | S* {{ }} `x` Kydlíček", "<kernel> | S* `x` Kydlíček"),
    # issue 31: commands that typeset as nothing, a symbol, raised or lowered text
    (r"Fast\relax{} and \protect\textbf{small}", "Fast and small"),
    (r"3\texttimes 4 and 5\texttimes{} 6 \textpm 1\textdegree", "3×4 and 5× 6 ±1°"),
    (r"the 4\textsuperscript{th} at 10\textsuperscript{-3}, H\textsubscript{2}O", "the 4th at 10⁻³, H₂O"),
])
def test_latex_of_bibtex_reads_as_typeset(tex: str, shown: str) -> None:
    assert bib_text(tex) == shown


# --- the real bibliographies ----------------------------------------------------------------------


def entry_count(text: str) -> int:
    """Entries by a plain count of `@type{key,` (not the reader's parser), less the one key the
    playbook gives twice to the same entry."""
    kinds = re.findall(r"^\s*@(\w+)\s*[{(]", text, re.M)
    return sum(k.lower() not in ("string", "comment", "preamble") for k in kinds)


def with_abstract(text: str) -> int:
    return len(re.findall(r"^\s*abstract\s*=\s*[{\"]\s*[^\s}\"]", text, re.M | re.I))


def test_real_bib_files_are_read_whole() -> None:
    files = {path.name: path for path in real_bib_files()}
    read = {name: read_source(path) for name, path in files.items()}
    for name, source in read.items():
        text = files[name].read_text(encoding="utf-8")
        repeated = 1 if name.startswith("nanotron") else 0
        assert len(source.entries) == entry_count(text) - repeated, name
        assert sum(bool(e.abstract) for e in source.entries) == with_abstract(text), name
    # LaTeX left in a title: math only, and the braces Google Scholar writes as math ($\{$)
    assert sorted(e.key for s in read.values() for e in s.entries if re.search(r"[\\{}]", e.title)) == [
        "Dosovitskiy.Beyer.Kolesnikov.ea.2021*1", "moritz2018ray", "zheng2020ansor"]
    playbook = read["nanotron-ultrascale-playbook__bibliography.bib"]
    assert playbook.notes == [f"{files['nanotron-ultrascale-playbook__bibliography.bib']}:488: entry "
                              "micikevicius2018mixedprecisiontraining repeats the entry of line 389 "
                              "word for word; read once"]
    by_key = {e.key: e for source in read.values() for e in source.entries}
    zero = by_key["rajbhandari2020zero"]
    assert (zero.title, zero.arxiv, zero.date, zero.line) == (
        "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", "1910.02054", "2020", 398)
    assert zero.authors == ["Samyam Rajbhandari", "Jeff Rasley", "Olatunji Ruwase", "Yuxiong He"]
    flash = by_key["Dao2022-lf"]  # quoted, hard-wrapped, "Last, First", month macro
    assert flash.title == "FlashAttention: Fast and memory-efficient exact attention with IO-awareness"
    assert flash.authors == ["Tri Dao", "Daniel Y Fu", "Stefano Ermon", "Atri Rudra", "Christopher Ré"]
    assert (flash.date, flash.arxiv) == ("2022-05", None)
    dlrm = by_key["naumov2019deep"]  # "arXiv preprint arXiv:..." and "and others"
    assert (dlrm.arxiv, dlrm.authors[-1], len(dlrm.authors), dlrm.et_al) == (
        "1906.00091", "Alisson G Azzolini", 10, True)
    d2l = {e.key: e for e in read["d2l-en__d2l.bib"].entries}
    llama = d2l["touvron2023llama"]  # Ar{X}iv:ID, year 2023a, "and et al."
    assert (llama.title, llama.arxiv, llama.date) == (
        "LLaMA: Open and efficient foundation language models", "2302.13971", "2023")
    assert "et al." not in llama.authors and llama.authors[5] == "Timothée Lacroix" and llama.et_al
    assert by_key["Abadi.Barham.Chen.ea.2016"].authors[0] == "Martín Abadi"
    assert by_key["Bottou.Le-Cun.1988"].authors == ["Léon Bottou", "Yann Le Cun"]
    assert by_key["moritz2018ray"].title == "Ray: A distributed framework for emerging {AI} applications"
    assert by_key["10.1145/2648584.2648589"].links == {"paper": "https://doi.org/10.1145/2648584.2648589"}


def test_import_of_the_real_bib_files(corpus: Path) -> None:
    files = real_bib_files()
    before = load_corpus(corpus).papers
    result = survey("import", *map(str, files), "--corpus", str(corpus), env=DAY)
    assert result.returncode == 0, result.stderr
    texts = [f.read_text(encoding="utf-8") for f in files]
    entries = sum(map(entry_count, texts)) - 1
    abstracts = sum(map(with_abstract, texts))
    # 14 entries without an abstract are seed papers (11 of them, some in two files)
    assert result.stdout.splitlines()[0] == (
        f"entries read: {entries}; papers added: {abstracts}; already in the corpus: 14; "
        "possible duplicates to look at: 0")
    # named ten at a time: test_thousands_without_an_abstract_are_counted_not_listed_and_not_written
    assert f"not imported: {entries - abstracts - 14} entries without an abstract" in result.stdout
    after = load_corpus(corpus).papers
    assert len(after) == len(before) + abstracts
    zero = after[ZERO]
    assert (zero.arxiv, zero.authors[0], zero.date) == ("1910.02054", "Samyam Rajbhandari", "2020")
    for slug, paper in before.items():  # a merge adds, never changes what was there
        now = after[slug]
        assert (now.title, now.abstract, now.topics, now.tags) == (
            paper.title, paper.abstract, paper.topics, paper.tags)
        for name in ("arxiv", "authors", "date"):
            assert getattr(paper, name) in (None, [], getattr(now, name))
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    again = snapshot(corpus)
    assert survey("import", *map(str, files), "--corpus", str(corpus), env=DAY).returncode == 0
    assert snapshot(corpus) == again


def test_a_bibliography_in_every_shape_imports(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", "empty")
    result = survey("import", str(ODD), "--corpus", str(corpus), env=DAY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "entries read: 4; papers added: 3; already in the corpus: 0; possible duplicates to look at: 0")
    assert f"note: {ODD}:38: entry servekit repeats the entry of line 30 word for word; read once" \
        in result.stdout
    assert f"note: {ODD}:49: entry notitle has no title; skipped" in result.stdout
    assert (f"no abstract: {ODD} entry noabstract (line 46) 'A Paper With No Abstract' (arXiv 2101.99999)"
            in result.stdout)
    papers = {p.title: p for p in load_corpus(corpus).papers.values()}
    kernels = papers["GPU Kernels for &-Free Sparse Attention: 2–4$\\times$ Faster"]
    assert kernels.authors == ["Jörg Müller", "Ayşe Koç", "Jan Łukasiewicz"]
    # the repository its abstract names is its code link (issue 34)
    assert (kernels.arxiv, kernels.date, kernels.links) == ("2403.01234", "2024-03", {"code": "https://github.com/x/y"})
    assert kernels.abstract == ("We write kernels in C# and $O(n^2)$ time; 50% less memory than "
                                "FlashAttention \\cite{dao}. Code: https://github.com/x/y.")
    cafe = papers["Café – the Quantization Cookbook"]
    assert cafe.authors == ["María de la Fuente", "Jan van der Berg"]
    assert (cafe.arxiv, cafe.date) == ("2301.00001", "2023-01-15")
    assert cafe.links == {"code": "https://github.com/fuente/cafe", "paper": "https://doi.org/10.1000/xyz123"}
    assert cafe.abstract == "A cookbook of W4A16 recipes, from “fake” quantization to kernels — with 3 GPUs."
    servekit = papers["ServeKit"]
    assert (servekit.authors, servekit.date, servekit.links) == (
        ["The ServeKit Team"], "2025", {"pdf": "https://example.org/servekit.pdf"})
    assert survey("check", "--corpus", str(corpus)).returncode == 0


@pytest.mark.slow
def test_bibtex_papers_build_a_strict_site(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    assert survey("import", str(ODD), *map(str, real_bib_files()), "--corpus", str(corpus)).returncode == 0
    site = mkdocs_build(make_project(tmp_path, corpus))
    papers = {p.title: p for p in load_corpus(corpus).papers.values()}
    kernels = papers["GPU Kernels for &-Free Sparse Attention: 2–4$\\times$ Faster"]
    page = soup(site / "papers" / kernels.slug / "index.html")
    article = page.select_one("article.md-content__inner")
    for permalink in article.select("a.headerlink"):
        permalink.decompose()
    # The corpus keeps the TeX as the file gave it; the page shows it read (core/tex.py).
    assert kernels.title.endswith("2–4$\\times$ Faster")
    assert article.h1.get_text() == "GPU Kernels for &-Free Sparse Attention: 2–4× Faster"
    text = article.get_text(" ", strip=True)
    assert "Jörg Müller" in text and "Jan Łukasiewicz" in text
    assert "FlashAttention [dao]. Code: https://github.com/x/y" in text  # the address is a link


# --- enrich ---------------------------------------------------------------------------------------


def test_the_real_bib_files_match_seed_papers_by_their_titles_alone_for_review(corpus: Path) -> None:
    """The seed papers have no authors or date, and a bibliography's entries no abstract: each
    match is on the title alone, which any entry can carry, so nothing is written and each is for
    a person. The committed corpus's 11 BibTeX fills, checked by a person, are among them."""
    files = real_bib_files()
    unfill(corpus, "BibTeX bibliography ")
    before = snapshot(corpus)
    filled = {p.file for p in load_corpus(ROOT / "corpus").papers.values()  # seed-metadata.bib's aside
              if any(e.source.startswith("BibTeX") and "seed-metadata" not in e.source for e in p.enriched)}
    args = [a for f in files for a in ("--from", str(f))]
    result = survey("enrich", "--web", "none", *args, "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("papers lacking an arXiv id, authors or a date: 294; enriched: 0; for "
                                    "review: 13; not found: 283\n")
    reviewed = {line.split()[1].rstrip(":") for line in result.stdout.splitlines()
                if line.startswith("review:")}
    assert len(filled) == 11 and filled <= reviewed
    assert snapshot(corpus) == before


def test_the_list_of_seed_papers_lacking_metadata_is_current() -> None:
    """tests/data/seed-papers-lacking-metadata.txt lists every committed paper still lacking an
    arXiv id, authors or a date, and what it lacks."""
    listed = [line for line in (ROOT / "tests" / "data" / "seed-papers-lacking-metadata.txt")
              .read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    papers = load_corpus(ROOT / "corpus").sorted_papers()
    lacking = [f"{p.slug}: {', '.join(n for n in ('arxiv', 'authors', 'date') if not getattr(p, n))}"
               for p in papers if not (p.arxiv and p.authors and p.date)]
    assert listed == lacking
    assert (len(papers) - len(lacking), len(papers)) == (65, 313)


def own_export(papers: list[Paper], path: Path) -> Path:
    keys = bibtex_keys(papers)
    path.write_text(bib_file(papers, "round trip", lambda p: bibtex(p, keys.get(p.slug))), encoding="utf-8")
    return path


def test_our_own_bib_export_reads_back_exactly(tmp_path: Path) -> None:
    """Every committed paper, exported as the site's .bib files do (given a year, so that each
    is citable), reads back with the same title, authors and arXiv id, character for character:
    the title as a page shows it, its TeX read and its math kept as TeX (issue 34)."""
    papers = load_corpus(ROOT / "corpus").sorted_papers()
    papers.append(Paper(slug="tex-title", title=r"MoE$^2$ at 2.4\times in $\mathcal{O}(n)$ for \$5 {x}",
                        abstract="x", date="2025"))
    for paper in papers:
        paper.date = paper.date or "2024"
    entries = read_source(own_export(papers, tmp_path / "all.bib")).entries
    assert entries[-1].title == r"MoE² at 2.4× in $\mathcal{O}(n)$ for $5 {x}"
    shown = ["".join(f"${p.text}$" if p.math else p.text for p in tex_parts(paper.title)) for paper in papers]
    assert [(e.title, e.authors, e.arxiv) for e in entries] == list(zip(
        shown, [p.authors for p in papers], [p.arxiv for p in papers], strict=True))


def test_enrich_from_our_own_bib_export_gives_back_what_it_holds(corpus: Path, tmp_path: Path) -> None:
    """A round trip: the committed papers with authors, exported as the site's .bib does, then
    read back by enrich into copies that lack them (but their dates: a match on the title alone
    is for a person)."""
    papers = [p for p in load_corpus(corpus).sorted_papers() if p.authors]
    assert len(papers) >= 19
    bib = own_export(papers, tmp_path / "survey.bib")
    for paper in papers:
        path = corpus / paper.file
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name in ("arxiv", "authors", "et_al", "enriched"):
            data.pop(name, None)
        data["links"] = {k: v for k, v in data.get("links", {}).items() if k != "paper"} or None
        data = {k: v for k, v in data.items() if v is not None}
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = survey("enrich", "--web", "none", "--from", str(bib), "--corpus", str(corpus), env=DAY)
    assert result.returncode == 0, result.stderr
    assert f"enriched: {len(papers)} " in result.stdout
    back = load_corpus(corpus).papers
    for paper in papers:
        got = back[paper.slug]
        assert (got.authors, got.et_al, got.arxiv, got.year) == (
            paper.authors, paper.et_al, paper.arxiv, paper.year), paper.slug


def test_curated_fields_win_over_a_bibliography(corpus: Path) -> None:
    path = corpus / "papers" / f"{ZERO}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for name in ("arxiv", "authors", "date", "enriched"):
        data.pop(name, None)
    data["curated"] = ["authors", "date"]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    playbook = next(f for f in real_bib_files() if f.name.startswith("nanotron"))
    assert survey("import", str(playbook), "--corpus", str(corpus)).returncode == 0
    after = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert after["arxiv"] == "1910.02054" and "authors" not in after and "date" not in after


# --- bad input ------------------------------------------------------------------------------------

ENTRY = "@article{good,\n  title = {A Good Paper},\n  abstract = {Fine.},\n  year = 2024\n}\n"
BAD_BIBS = {
    # name: (content, what the one line says: its file:line, the entry, the words)
    "unclosed.bib": (ENTRY + "\n@article{open,\n  title = {Never closed,\n  year = 2024\n}\n",
                     ":11: entry open: premature end of file (entry from line 7); is a brace or a quote "
                     "left open?"),
    "unbalanced.bib": (ENTRY + "@misc{shut, title = {One} too many}, year = 2020}\n",
                       ":6: entry shut: '}' expected"),
    "twokeys.bib": (ENTRY + "\n@article{good,\n  title = {Another Paper},\n  year = 2023\n}\n",
                    ":7: entry good: the key is also used by another entry at line 1"),
    "macro.bib": (ENTRY + "@misc{m, title = {T}, publisher = undefined, author = nobody}\n",
                  ":6: entry m: field 'author': 'nobody' is not a defined @string macro"),
    "latin1.bib": (ENTRY.encode() + "@misc{cafe,\n  title = {Caf\xe9},\n  year = 2020\n}\n".encode("latin-1"),
                   ":7: entry cafe: byte 0xE9 is not UTF-8; save the file as UTF-8"),
}
# An entry no paper file could hold refuses the file only with --strict (tests/test_left_out_entries.py).
STRICT_BIBS = {
    "control.bib": (ENTRY + "@misc{ctl, title = {Bell \x07 here}, abstract = {A}}\n",
                    ":6: entry ctl: field 'title': contains a control character"),
    "authorctl.bib": (ENTRY + "@misc{ctl, title = {T}, author = {Doe, J\x1bane}}\n",
                      r":6: entry ctl: field 'author': 'Doe, J\x1bane' contains a control character"),
    "commas.bib": (ENTRY + "@misc{names, title = {T}, author = {A, B, C, D}}\n",
                   ":6: entry names: field 'author': 'A, B, C, D': Too many commas"),
}


@pytest.mark.parametrize("name", sorted(BAD_BIBS) + sorted(STRICT_BIBS))
def test_bad_bibtex_is_one_line_and_changes_nothing(name: str, tmp_path: Path) -> None:
    # two papers, one lacking what enrich fills: a copy of the committed corpus cost 0.3 s a case
    corpus = make_corpus(tmp_path / "corpus", "papers", [ZERO, "rewrite-the-stars"])
    content, message = BAD_BIBS.get(name) or STRICT_BIBS[name]
    bad = tmp_path / name
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = snapshot(corpus)
    commands = [["import", str(bad), "--strict"]]
    if name in BAD_BIBS:
        commands += [["import", str(bad)], ["enrich", "--web", "none", "--from", str(bad)]]
    for command in commands:
        result = survey(*command, "--corpus", str(corpus))
        assert result.returncode == 1, result.stdout
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        assert lines[0].startswith(f"survey {command[0]}: {bad}:"), lines[0]
        assert message in lines[0], lines[0]
        assert snapshot(corpus) == before


def test_odd_but_valid_bibtex_is_read(tmp_path: Path) -> None:
    """5 MB in a field we do not read (quoted, with braces in it: pybtex's own scanner took
    minutes), an undefined macro there, unknown entry types, JabRef's Latin-1 with its header."""
    big = '"' + "{A}bc " * 850_000 + '"'
    text = ("@preamble{\"\\newcommand{\\x}{}\"}\n@comment{nothing @here}\n"
            "@dataset{d, title = {Data Set Paper}, abstract = {About data.}, note = " + big + ",\n"
            "  publisher = somemacro}\n"
            "@whatever{w, title = {Odd Type}, abstract = {Still a paper.}}\n")
    odd = tmp_path / "odd.bib"
    odd.write_text(text, encoding="utf-8")
    source = read_source(odd)
    assert [(e.key, e.title, e.abstract) for e in source.entries] == [
        ("d", "Data Set Paper", "About data."), ("w", "Odd Type", "Still a paper.")]
    jabref = tmp_path / "jabref.bib"
    jabref.write_bytes(b"% This file was created with JabRef 2.10.\n% Encoding: ISO8859_1\n\n"
                       + "@article{c, title = {Caf\xe9 na\xefve}, author = {M\xfcller, J\xf6rg}}\n"
                       .encode("latin-1"))
    entry = read_source(jabref).entries[0]
    assert (entry.title, entry.authors) == ("Café naïve", ["Jörg Müller"])


def test_thousands_without_an_abstract_are_counted_not_listed_and_not_written(tmp_path: Path) -> None:
    """Entries without an abstract are one summary line, not one line each."""
    bib = tmp_path / "refs.bib"
    bib.write_text("".join(f"@misc{{k{i}, title = {{Paper Number {i}}}, year = 2020}}\n" for i in range(300)))
    corpus = make_corpus(tmp_path / "c", "empty")
    before = snapshot(corpus)
    result = survey("import", str(bib), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "not imported: 300 entries without an abstract" in result.stdout
    named = [line for line in result.stdout.splitlines() if line.startswith("no abstract: ")]
    assert named[0] == f"no abstract: {bib} entry k0 (line 1) 'Paper Number 0'" and len(named) == 11
    assert named[-1] == "no abstract: and 290 more entries"
    assert "files written: 0" in result.stdout and snapshot(corpus) == before
