"""`survey review`'s terminal (issue 35 item 3, issue 37 item 1): a screen that fits 80x24, single
keys to accept, mark topics, reject, skip, undo, read more, open, get help and quit; each
decision written at once, each undone byte for byte.

Sittings run in process on conftest.make_corpus's "review" (two reviewed papers, six waiting) with keys
and a size the test gives; the terminal itself through a pty, once in UTF-8 and once in ASCII.
"""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml
from conftest import (
    HOSTILE_SLUG,
    HOSTILE_TITLE,
    REVIEWED,
    ROOT,
    SUGGESTED,
    make_corpus,
    paper_data,
    snapshot,
    survey,
)

from generator.cli.review import Sitting
from generator.cli.screen import Done
from generator.cli.terminal import RESIZED, Terminal, cells
from generator.core.output import Escaped
from generator.core.settings import today
from generator.core.text import printable

ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")




class Keys:
    """Key presses for a sitting, and every screen it showed."""

    def __init__(self, keys: list[str] | str, size: tuple[int, int] = (80, 24)) -> None:
        self.keys = list(keys)
        self.out = io.StringIO()
        self.opened: list[str] = []
        self.size = size

    def terminal(self) -> Terminal:
        def key() -> str:
            assert self.keys, "the sitting asked for more keys than the test gave"
            return self.keys.pop(0)

        def opened(url: str) -> bool:
            self.opened.append(url)
            return True
        return Terminal(key, Escaped(self.out), lambda: self.size, opened)  # type: ignore[arg-type]

    def screens(self) -> list[list[str]]:
        """Each screen as its lines, without the session's own controls (clear, bold)."""
        return [ESCAPE.sub("", s).split("\n") for s in self.out.getvalue().split("\x1b[H\x1b[2J")[1:]]


def sit(corpus: Path, keys: Keys, *slugs: str) -> tuple[list[str], Done]:
    sitting = Sitting(corpus, slugs)
    return sitting.slugs, sitting.session(keys.terminal()).run()


def test_single_keys_mark_accept_skip_open_and_quit(review_corpus: Path) -> None:
    keys = Keys("x2" + "a" + "s" + "o4" + "a" + "q")
    slugs, done = sit(review_corpus, keys)
    first, second, third = slugs[:3]
    # the first paper, marked: quantization added to what the model suggested, then accepted
    assert paper_data(review_corpus, first)["topics"] == ["parallelism", "quantization", "serving"]
    decided = paper_data(review_corpus, first)
    assert "topics" in decided["curated"] and "confidence" not in decided
    assert "topics" not in paper_data(review_corpus, second).get("curated", [])  # skipped: unchanged
    assert third == "analyzing-modern-nvidia-gpu-cores"  # no link: the arXiv search for its title
    link = "https://arxiv.org/search/?searchtype=title&query=Analyzing+Modern+NVIDIA+GPU+cores"
    assert keys.opened == [link]
    assert paper_data(review_corpus, third)["topics"] == []  # kernels, its one topic, unmarked (key 4)
    assert (done.decided, done.rejected, done.skipped, done.left) == (2, 0, 1, len(slugs) - 2)
    shown = "\n".join("\n".join(s) for s in keys.screens())
    assert "not a key of review ('x'); ? shows the keys" in shown
    opened = next(s for s in keys.screens() if any(line.startswith("opened ") for line in s))
    start = next(n for n, line in enumerate(opened) if line.startswith("opened "))
    assert "".join(opened[start:]) == f"opened {link}"  # whole, over two lines, to copy by hand
    screens = keys.screens()
    assert screens[0][0] == "survey review: paper 1 of 6 · 2 of 8 papers reviewed by a person"
    assert screens[0][1] == "Accelerating Feedforward Computation via Parallel Nonlinear Equation Solving"
    assert screens[0][2] == "no authors given"
    assert any(re.fullmatch(r" 1 \[x\] Parallelism   suggested \(0\.98\)", line) for line in screens[0])
    assert any(re.fullmatch(r"       words that point to Parallelism: .*", line) for line in screens[0])
    assert " 2 [ ] Quantization  not suggested (0.01)" in screens[0]
    assert " 2 [x] Quantization  not suggested (0.01)" in screens[2]  # after x, then the key 2
    # the next paper's screen says what was done, and that u undoes it; the header counts it
    assert screens[3][0] == "survey review: paper 2 of 6 · 3 of 8 papers reviewed by a person"
    assert any(line.startswith("decided (u undoes it): Accelerating Feedforward") for line in screens[3])


def test_every_screen_fits_the_terminal_and_keeps_header_title_authors_and_topics(
        tmp_path: Path) -> None:
    """On the small corpus's papers (abstracts of up to 2,000 characters, titles of two lines,
    hostile text), at 80x24 and at 60x16 (below the smallest a curator is expected to use):
    every line within the width, the screen within the height, and the header, the title, the
    authors line and each topic with its key on every screen."""
    corpus = make_corpus(tmp_path / "c")
    sitting = Sitting(corpus)
    slugs = list(sitting.glances)
    for size in ((80, 24), (60, 16), (120, 40)):
        keys = Keys("s" * len(slugs), size)
        Sitting(corpus, slugs).session(keys.terminal()).run()
        screens = keys.screens()[:-1]
        assert len(screens) == len(slugs)
        for slug, lines in zip(slugs, screens, strict=True):
            title = sitting.book.paper(slug).title
            assert len(lines) <= size[1], (size, slug, len(lines))
            assert all(cells(line) < size[0] for line in lines), (size, slug)
            assert lines[0].startswith("survey review: paper ")
            assert lines[1].split()[0] in printable(title)
            assert any(line.startswith(("by ", "no authors given")) for line in lines[2:5])
            for n, name in enumerate(("Parallelism", "Quantization", "Serving", "Kernels"), 1):
                assert any(line.startswith(f" {n} [") and name in line for line in lines), (size, slug, n)
            # a topic the paper has words for never reads as one it has none for, however narrow
            toward = {w.name: w.toward for w in sitting.book.why(sitting.book.paper(slug))}
            for line in lines:
                if said := re.match(r" +no word of the paper points to (\w+)", line):
                    assert not toward[said.group(1)], (size, slug, line)
            assert any(line.startswith("a accept  r reject") for line in lines)
        if size == (120, 40):  # a larger terminal shows more of each abstract
            assert any(line.startswith("tags: ") for s in screens for line in s)


def test_a_long_abstract_is_cut_to_the_space_left_and_m_shows_all_of_it(review_corpus: Path) -> None:
    slug = "accelerating-feedforward-computation-via-parallel-nonlinear"
    abstract = paper_data(review_corpus, slug)["abstract"]
    keys = Keys("m" + "x" + "q")
    sit(review_corpus, keys, slug)
    first, whole = keys.screens()[:2]
    marker = next(line for line in first if line.startswith("… m: all of the abstract ("))
    assert re.fullmatch(r"… m: all of the abstract \(\d+ more lines?\)", marker)
    words = " ".join(whole[2:-1]).split()
    assert words == abstract.split()  # all of it, every word, in order
    assert whole[-1] == "any key: back to the paper"


def test_a_sitting_on_a_topic_says_so_in_its_header(review_corpus: Path) -> None:
    keys = Keys("q")
    Sitting(review_corpus, topic="kernels").session(keys.terminal()).run()
    assert keys.screens()[0][0] == "survey review: paper 1 of 1 on or near kernels · 2 of 8 papers reviewed"
    keys = Keys("q", size=(70, 24))  # too narrow for "papers reviewed"
    Sitting(review_corpus, topic="quantization").session(keys.terminal()).run()
    assert keys.screens()[0][0] == "survey review: paper 1 of 1 on or near quantization · 2 of 8 reviewed"


def test_help_lists_every_key(review_corpus: Path) -> None:
    keys = Keys("?" + "x" + "q")
    sit(review_corpus, keys)
    shown = keys.screens()[1]
    for key in ("a ", "1-4", "r ", "s ", "u ", "m ", "o ", "? ", "q "):
        assert any(line.startswith(f"  {key}") for line in shown), key


def test_undo_takes_back_the_last_decisions_byte_for_byte(review_corpus: Path) -> None:
    before = snapshot(review_corpus)
    keys = Keys("a" + "2a" + "u" + "u" + "q")
    _, done = sit(review_corpus, keys)
    assert snapshot(review_corpus) == before
    assert done.decided == 0
    screens = keys.screens()
    assert screens[4][0].startswith("survey review: paper 2 of 6 · 3 of 8")  # back at the second
    assert screens[4][-1] == "undone: your decision of this paper"
    assert screens[5][0].startswith("survey review: paper 1 of 6 · 2 of 8")  # and at the first
    nothing = Keys("u" + "q")
    sit(review_corpus, nothing)
    assert nothing.screens()[1][-1] == "nothing to undo: no decision yet in this sitting"


def test_reject_asks_a_reason_removes_the_paper_and_undo_brings_it_back(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    slug = next(s for s, where in sorted(Sitting(corpus).book.corpus().listings_of().items())
                if len(where) > 1)
    keys = Keys(["r", "o", "f", "f", "x", "\x7f", " topic", "\r", "q"])
    _, done = sit(corpus, keys, slug)
    assert done.rejected == 1
    assert not (corpus / "papers" / f"{slug}.yaml").exists()
    entry = yaml.safe_load((corpus / "rejected.yaml").read_text(encoding="utf-8"))
    assert [(e["slug"], e["reason"]) for e in entry] == [(slug, "off topic")]
    assert all(slug not in (corpus / "listings" / name).read_text(encoding="utf-8")
               for name in os.listdir(corpus / "listings"))
    assert survey("check", "--corpus", str(corpus)).returncode == 0
    prompt = keys.screens()[1][-1]
    assert prompt == "Reject it? A reason (Enter rejects, Esc keeps it): "



def test_a_rejection_undone_or_cancelled_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    slug = next(s for s, where in sorted(Sitting(corpus).book.corpus().listings_of().items())
                if len(where) > 1)
    before = snapshot(corpus)
    undone = Keys(["r", "\r", "u", "q"])  # u on the screen that ends the sitting
    _, done = sit(corpus, undone, slug)
    assert snapshot(corpus) == before and done.rejected == 0  # its listings too; no rejected.yaml
    assert undone.screens()[2][0] == "survey review: that was the last paper of this sitting"
    assert undone.screens()[3][-1] == "undone: your rejection of this paper"
    kept = Keys(["r", "x", "\x1b", "q"])
    sit(corpus, kept, slug)
    assert snapshot(corpus) == before
    assert kept.screens()[-2][-1] == "not rejected"


def test_a_reason_read_with_its_enter_in_one_burst_rejects_at_once(tmp_path: Path) -> None:
    """A paste, or keys typed faster than the screen reads them, arrive as one read: its Enter
    ends the reason (what follows it is no key); an arrow's escape sequence is no Esc, a lone
    Esc in a burst still keeps the paper."""
    corpus = make_corpus(tmp_path / "c")
    slugs = sorted(os.listdir(corpus / "papers"))[:2]
    keys = Keys(["r", "off\x1b[D\x1bOC to", "pic\rs", "q"])
    _, done = sit(corpus, keys, slugs[0][:-5])
    assert done.rejected == 1
    entry = yaml.safe_load((corpus / "rejected.yaml").read_text(encoding="utf-8"))
    assert [e["reason"] for e in entry] == ["off topic"]
    kept = Keys(["r", "x\x1b", "q"])
    _, done = sit(corpus, kept, slugs[1][:-5])
    assert done.rejected == 0 and kept.screens()[-2][-1] == "not rejected"


def test_a_rejected_papers_slug_is_not_reviewed_and_says_how_to_bring_it_back(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c")
    slug = sorted(os.listdir(corpus / "papers"))[0][:-5]
    sit(corpus, Keys(["r", "\r", "q"]), slug)
    result = survey("review", slug, "--corpus", str(corpus))
    assert result.returncode == 1
    assert result.stderr.startswith(f"survey review: {slug}: rejected on ")
    assert "brings it back" in result.stderr
    other = sorted(os.listdir(corpus / "papers"))[0][:-5]
    wrong = survey("review", other[:-2], "--list", "--corpus", str(corpus))
    assert wrong.stderr == (f"survey review: {other[:-2]}: no paper with this slug in the corpus; "
                            f"did you mean {other}?\n")


def test_review_slug_decides_that_paper_now_even_a_reviewed_one(review_corpus: Path) -> None:
    keys = Keys("3a" + "x")  # x: any key but u ends the sitting after its last paper
    slugs, done = sit(review_corpus, keys, REVIEWED[0])
    assert slugs == [REVIEWED[0]] and done.decided == 1
    assert done.summary() == ("survey review: 1 decided, 0 rejected, 0 skipped; 0 of the papers named not "
                              "decided")  # they are not the queue
    assert "topics reviewed by a person" in " ".join(keys.screens()[0][3:5])  # its marks are a person's
    waiting = Keys("q")
    sit(review_corpus, waiting, SUGGESTED[0])
    assert "topics reviewed" not in "".join(waiting.screens()[0])
    assert "serving" in paper_data(review_corpus, REVIEWED[0])["topics"]


def test_corpus_text_reaches_the_terminal_as_written(review_corpus: Path) -> None:
    """A bidi control cannot be in a title (survey check); what can be is shown as it is."""
    keys = Keys("q")
    sit(review_corpus, keys, HOSTILE_SLUG)
    shown = keys.out.getvalue()
    assert HOSTILE_TITLE in shown
    # the escapes are the session's own (clearing the screen, the title in bold), none from the corpus
    assert set(ESCAPE.findall(shown)) == {"\x1b[H", "\x1b[2J", "\x1b[1m", "\x1b[0m"}


TEX_TITLE = r"Serving at 2.4$\times$ the Speed with \textsc{Fast} and $\mathcal{O}(n)$ memory"
TEX_READ = "Serving at 2.4× the Speed with Fast and 𝒪(n) memory"


def test_titles_show_their_tex_as_a_page_does(review_corpus: Path, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    """Everywhere the queue shows a title (--list, the screen, the line after a decision, the
    search `o` opens for a paper without a link), its TeX reads as on the paper's page."""
    from generator.cli.main import main

    slug = "algorithms-for-caching-and-mts-with-reduced-number-of"
    path = review_corpus / "papers" / f"{slug}.yaml"
    data = paper_data(review_corpus, slug)
    data["title"] = TEX_TITLE
    data.pop("arxiv", None)
    data.pop("links", None)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    assert main(["review", "--list", "--corpus", str(review_corpus)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(slug))
    assert line.endswith(f"  {TEX_READ}")
    keys = Keys("o" + "a" + "q")
    sit(review_corpus, keys, slug, SUGGESTED[0])
    screens = keys.screens()
    assert screens[0][1] == screens[1][1] == TEX_READ
    assert keys.opened == ["https://arxiv.org/search/?searchtype=title&query=Serving+at+2.4%C3%97+the+"
                           "Speed+with+Fast+and+%F0%9D%92%AA%28n%29+memory"]
    assert screens[2][-1] == f"decided (u undoes it): {TEX_READ}"
    assert "$" not in keys.out.getvalue() and "\\" not in keys.out.getvalue()


def in_a_terminal(*args: str, keys: Sequence[tuple[str, bytes]], end: str, env: dict[str, str] | None = None
                  ) -> tuple[int, str, bool]:
    """`survey ARGS` on a pseudo-terminal of 80x24: each key pressed once its text is shown, then
    `end` awaited. Its exit status, all it showed, and whether the terminal's modes were as before."""
    import termios

    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    process = subprocess.Popen([sys.executable, "-m", "generator", *args], stdin=slave, stdout=slave,
                               stderr=slave, cwd=ROOT, env={**os.environ, "COLUMNS": "80", "LINES": "24",
                                                            **(env or {})})
    seen = ""
    try:
        for text, key in keys:
            seen = _until(master, text, seen)
            os.write(master, key)
        seen = _until(master, end, seen)
        status = process.wait(timeout=60)
        while select.select([master], [], [], 0.2)[0]:  # all it printed before it ended
            seen += os.read(master, 65536).decode("utf-8", "replace")
        return status, seen, termios.tcgetattr(slave) == before
    finally:
        process.kill()
        os.close(slave)
        os.close(master)


def _until(master: int, text: str, seen: str, timeout: float = 60) -> str:
    end = time.monotonic() + timeout
    while text not in seen:
        left = end - time.monotonic()
        assert left > 0, f"waited {timeout} s for {text!r}; the terminal showed:\n{seen[-2000:]}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536).decode("utf-8", "replace")
    return seen


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_review_on_a_real_terminal_decides_with_single_keys(review_corpus: Path, encoding: str) -> None:
    """Through a pty: no Enter, no echo, the terminal as it was afterwards; a terminal that
    cannot show a character gets its escape, not a traceback."""

    first = Sitting(review_corpus).slugs[0]
    status, seen, restored = in_a_terminal(
        "review", "--corpus", str(review_corpus), env={"PYTHONIOENCODING": encoding},
        keys=[("survey review: paper 1 of 6", b"a"), ("survey review: paper 2 of 6", b"q")], end="0 skipped")
    assert status == 0 and restored  # echo and line editing back on
    assert "survey review: 1 decided, 0 rejected, 0 skipped" in seen
    assert "survey train" not in seen  # one decision is no reason to retrain (classify/training.py)
    assert "topics" in paper_data(review_corpus, first)["curated"]
    assert "Traceback" not in seen
    if encoding == "ascii":
        assert "·" not in seen and " - 2 of 8 papers reviewed" in seen


def resizing(keys: Keys, sizes: list[tuple[int, int]]) -> Terminal:
    """keys' terminal, whose size changes to the next of `sizes` as each RESIZED is read."""
    import dataclasses

    term = keys.terminal()
    left = iter(sizes)

    def key() -> str:
        got = term.key()
        if got == RESIZED:
            keys.size = next(left)
        return got
    return dataclasses.replace(term, key=key)


def test_a_resized_terminal_is_drawn_again_at_its_new_size(review_corpus: Path) -> None:
    """The paper (its note kept), the reason prompt, a page of the abstract and the sitting's last
    screen are drawn again at once at the new size; a resize is no key (nothing decided, no note)."""
    keys = Keys(["o", RESIZED, "r", RESIZED, "\x1b", "m", RESIZED, "x", "a", RESIZED, "x"])
    sitting = Sitting(review_corpus, [SUGGESTED[0]])
    done = sitting.session(resizing(keys, [(100, 30), (60, 16), (70, 20), (60, 16)])).run()
    assert done.decided == 1
    screens = keys.screens()[:-1]  # the last: the screen cleared at the end

    def kind(screen: list[str]) -> str:
        said = {"opened ": "opened", "Reject it?": "reason", "Why? ": "reason", "not rejected": "not "
                "rejected", "space: more": "page", "any key: back": "page", "u: undo your": "last",
                "a accept": "paper"}
        last = screen[-3:]
        return next((what for start, what in said.items() if any(line.startswith(start) for line in last)),
                    "\n".join(screen))
    assert [kind(screen) for screen in screens] == [
        "paper", "opened", "opened",  # resized: the note kept
        "reason", "reason",  # resized: the prompt asked again
        "not rejected", "page", "page",  # resized: the page again
        "paper", "last", "last"]  # resized: the sitting not ended
    for n, (columns, rows) in zip((2, 4, 7, 10), [(100, 30), (60, 16), (70, 20), (60, 16)], strict=True):
        assert len(screens[n]) <= rows and all(cells(line) < columns for line in screens[n]), screens[n]
        assert cells(max(screens[n], key=cells)) > columns - 12  # drawn to the new width
    assert not any("not a key" in line for screen in screens for line in screen)


def test_the_key_reader_says_when_the_terminal_was_resized(monkeypatch: pytest.MonkeyPatch) -> None:
    import signal

    from generator.cli.terminal import KeyReader

    master, slave = os.openpty()
    try:
        monkeypatch.setattr(sys, "stdin", os.fdopen(slave, closefd=False))
        with KeyReader() as key:
            signal.raise_signal(signal.SIGWINCH)
            assert key() == RESIZED
            os.write(master, b"a")
            assert key() == "a"
            os.write(master, "bä".encode()[:2])  # a read that ends inside a character (a long paste)
            assert key() == "b"
            os.write(master, "ä".encode()[1:])
            assert key() == "ä"
        assert signal.getsignal(signal.SIGWINCH) == signal.SIG_DFL  # as it was
    finally:
        os.close(master)
        os.close(slave)


def test_the_words_of_a_topic_are_as_the_paper_writes_them(review_corpus: Path) -> None:
    """The model reads "e.g." as its word "e.g" (lowercased, without the last dot), "GPUs" as
    "gpus": the screen shows the abbreviation whole and the word in its case, as written."""
    from generator.classify.why import why
    from generator.corpus.store import load_corpus

    title, abstract = "Serving vision models", "We serve vision models on many GPUs (e.g., classifiers)."
    serving = next(w for w in why(load_corpus(review_corpus).taxonomy, title, abstract) if w.id == "serving")
    assert "e.g." in serving.against and "e.g" not in serving.against  # the pinned model: -0.43
    assert "GPUs" in serving.toward and "gpus" not in serving.toward


def test_a_paper_rejected_meanwhile_in_another_sitting_is_one_line_on_the_screen(tmp_path: Path) -> None:
    """Two curators on one paper: the second one's decision was a FileNotFoundError traceback
    (audit J13)."""
    corpus = make_corpus(tmp_path / "c")
    slug = sorted(os.listdir(corpus / "papers"))[0][:-5]
    keys = Keys(["a", "q"])
    terminal = keys.terminal()
    first_key = terminal.key

    def key() -> str:  # while the paper is on this screen, another sitting rejects it
        if len(keys.keys) == 2:
            sit(corpus, Keys(["r", "o", "f", "f", "\r", "q"]), slug)
        return first_key()

    terminal.key = key
    done = Sitting(corpus, [slug]).session(terminal).run()
    assert done.decided == 0 and done.rejected == 0
    assert " ".join(keys.screens()[-2]).endswith(f"{slug}: rejected meanwhile by another sitting or command "
                                                 f"({today()}: off); nothing written")
