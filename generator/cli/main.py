"""The `survey` command: import, check, export, explain, classify, review, quality, build, add, enrich,
fetch."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..core.errors import SurveyError
from ..core.output import escaped, raw, unexpected
from ..core.progress import Progress
from ..core.settings import read_settings, today
from ..core.text import shown_path
from .fetch import cmd_fetch, fetch_arguments
from .review import Sitting, cmd_review, print_queue, review_arguments
from .topics import cmd_classify, cmd_explain, cmd_quality, cmd_train, quality_args, train_args


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="survey", description="Keep a literature survey as a corpus of YAML files and publish it.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("import", help="add or merge papers from listing text, saved HF pages, "
                                      "daily-papers JSON, arXiv Atom or BibTeX")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--name", help="the listing's name (one listing at a time)")
    p.add_argument("--on-topic", action="store_true",
                   help="from feeds (daily-papers JSON, arXiv Atom), add only the papers that get a topic; "
                        "list the rest in a report (--left-out). Curated listings import whole")
    p.add_argument("--take", action="append", default=[], metavar="ID",
                   help="an entry (arXiv id) to add although it got no topic, also from a feed "
                        "imported before (repeatable)")
    p.add_argument("--left-out", metavar="FILE",
                   help="where --on-topic lists the papers it left out (default: left-out-FEED.csv)")
    p.add_argument("--force", action="store_true",
                   help="take in a paper --take names although a curator rejected it (it leaves "
                        "corpus/rejected.yaml)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a whole file for one entry that survey check would refuse (by default "
                        "that entry is left out, named, and listed in the --left-out report)")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")

    p = sub.add_parser("check", help="validate the whole corpus")
    p.add_argument("--review", action="store_true",
                   help="then list the papers whose topics no person has confirmed, as survey review --list")

    p = sub.add_parser("export", help="write the corpus as JSON (or CSV)")
    p.add_argument("--format", choices=("json", "csv"), default="json")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")

    p = sub.add_parser("explain", help="show which rules gave a paper its topics and tags")
    p.add_argument("slug")

    p = sub.add_parser("classify", help="compare the rules' suggestions with the papers' topics "
                                        "and tags; --write applies them where not curated")
    p.add_argument("--write", action="store_true")

    p = sub.add_parser("review", help="decide the topics no person has confirmed, the papers the model "
                                      "is least sure of first; --list prints the queue, --apply FILE "
                                      "applies decisions")
    review_arguments(p)

    p = sub.add_parser("quality", help="precision, recall and F1 of the topic suggestions: held out "
                                       "and cross-validated, and the share flagged for review")
    quality_args(p)

    p = sub.add_parser("train", help="fit the topic model on the corpus's reviewed papers and the "
                                     "labelled papers, and write corpus/topic_model.yaml")
    train_args(p)

    p = sub.add_parser("build", help="write the site's generated Markdown to a folder")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--templates", metavar="DIR",
                   help="the page templates (default: templates/ of the project the corpus is in)")
    p.add_argument("--site-url", help="the site's URL, for feeds (default: site_url of mkdocs.yml)")

    p = sub.add_parser("enrich", help="fill in missing arXiv ids, authors, dates and links from "
                                      "daily-papers JSON or BibTeX files and public metadata APIs")
    p.add_argument("--from", dest="files", action="append", default=[], metavar="FILE",
                   help="a daily-papers JSON file (.json or .json.gz) or a BibTeX file (.bib) to take "
                        "metadata from (repeatable)")
    p.add_argument("--web", default="arxiv,s2,openalex", metavar="LIST",
                   help="the APIs to ask, in order: arxiv, s2 (Semantic Scholar), openalex; "
                        "'none' for files only (default: %(default)s)")
    p.add_argument("--offline", action="store_true", help="read API answers from the cache only")
    p.add_argument("--cache", default=".cache/survey-enrich", metavar="DIR",
                   help="where API answers are kept (default: %(default)s)")
    p.add_argument("--delay", type=float, default=3.0, metavar="SECONDS",
                   help="pause between two requests to one API (default: %(default)s, as arXiv asks)")
    p.add_argument("--paper", action="append", metavar="SLUG", help="only this paper (repeatable)")
    p.add_argument("--confirm", nargs="+", action="extend", default=[], metavar="SLUG",
                   help="write the matches by the title alone that a run listed for review and you have "
                        "checked: all of them (all), or those of the papers named")
    p.add_argument("--limit", type=int, metavar="N",
                   help="ask the network about at most N papers (cached answers do not count)")
    p.add_argument("--report", metavar="FILE", help="also write the report as Markdown (for a pull request)")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")

    p = sub.add_parser("fetch", help="ask arXiv for the survey's new papers (corpus/fetch.yaml) and import "
                                     "them with --on-topic")
    fetch_arguments(p)

    p = sub.add_parser("add", help="create a new paper file (from options, stdin, arXiv or an HF page)")
    _add_arguments(p)
    for p in sub.choices.values():  # every command reads or writes one corpus
        p.add_argument("--corpus", default="corpus", metavar="DIR",
                       help="the corpus folder (default: corpus/)")
    return parser


def _add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--arxiv", metavar="ID", help="fetch title, abstract, authors and date from arXiv "
                                                   "(with --title and --abstract: just record the id)")
    src.add_argument("--hf", metavar="URL_OR_FILE", help="a Hugging Face paper page URL or saved page")
    p.add_argument("--title")
    p.add_argument("--abstract")
    p.add_argument("--author", action="append", default=[], metavar="NAME", help="repeatable")
    p.add_argument("--date", help="YYYY, YYYY-MM or YYYY-MM-DD")
    p.add_argument("--code", metavar="URL")
    p.add_argument("--project", metavar="URL")
    p.add_argument("--topic", action="append", metavar="ID",
                   help="set the topics yourself (repeatable; marks them curated)")
    p.add_argument("--tag", action="append", metavar="ID",
                   help="set the tags yourself (repeatable; marks them curated)")
    p.add_argument("--dry-run", action="store_true", help="print the file instead of writing it")
    p.add_argument("--force", action="store_true",
                   help="add a paper a curator rejected (it leaves corpus/rejected.yaml)")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with escaped():  # every byte the command prints, its arguments' echo included
            return _run(argv)
    except BrokenPipeError:
        # The reader went away (`survey export | head -1`): end quietly, as a process that
        # SIGPIPE killed ends. What is still buffered goes nowhere, not to a traceback at exit.
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
    try:
        with _writing(args):
            return handler(args)
    except SurveyError as exc:
        print(f"survey {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("survey: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except Exception as exc:  # a bug: Python printed it after escaped() had restored the raw streams
        print(f"survey {args.command}: {unexpected(exc)}", file=sys.stderr)
        return 1


# The commands that write the corpus, and when (not for a dry run): each holds the corpus's
# writer lock from before it reads the corpus until it has written, so that no other writer's
# change is lost in between. `train` writes only its model and locks only for that write.
WRITES: dict[str, Callable[[argparse.Namespace], bool]] = {
    "import": lambda a: not a.dry_run, "add": lambda a: not a.dry_run,
    "enrich": lambda a: not a.dry_run, "classify": lambda a: bool(a.write),
    # An interactive review locks for each decision it writes, not while the curator reads.
    "review": lambda a: bool(a.apply) and not a.dry_run,
}


@contextlib.contextmanager
def _writing(args: argparse.Namespace) -> Iterator[None]:
    from ..corpus.journal import writing

    if not WRITES.get(args.command, lambda a: False)(args):
        yield
        return
    with writing(Path(args.corpus)) as notes:
        for note in notes:
            print(f"survey {args.command}: {note}", file=sys.stderr)
        yield


def cmd_import(args: argparse.Namespace) -> int:
    from ..corpus.store import load_corpus
    from ..sources.importer import Importer
    from ..sources.scope import report_csv, report_path, without_taken
    from .outputs import output_path, write_output

    if args.name is not None:
        refuse_listing_name(args.name)
    what = "the report of papers left out"
    path = Path(args.left_out) if args.left_out else report_path(args.paths)
    if not args.dry_run and (args.on_topic or args.left_out):
        path = output_path(str(path), what, corpus=args.corpus, inputs=args.paths)
    corpus = load_corpus(args.corpus)
    importer = Importer(corpus, today(), on_topic=args.on_topic, take=frozenset(args.take),
                        force=args.force)
    sources = importer.read_all([Path(p) for p in args.paths], Progress("reading"), strict=args.strict)
    report = importer.run(sources, name=args.name, progress=Progress("importing"),
                          classifying=Progress("classifying the papers added"))
    # Written before the corpus: a re-run leaves nothing out.
    if (report.left_out or report.refused) and not args.dry_run:
        if not (args.on_topic or args.left_out):  # not asked for: checked only now that it is written
            path = output_path(str(path), what, corpus=args.corpus, inputs=args.paths)
        write_output(path, report_csv([*report.refused, *report.left_out], args.corpus, args.name), what)
    elif report.taken and not args.dry_run and path.is_file() and path.stat().st_size < 2**26:
        mended = without_taken(path.read_text(encoding="utf-8", errors="replace"), set(args.take))
        if mended is not None:  # the papers taken in are no longer left out
            write_output(path, mended, what)
    if not args.dry_run:
        importer.write()
    if read_settings().publish_waiting:  # the site publishes every paper
        report.off_site = 0
    print(report.summary(None if args.dry_run else str(path)))
    return 0


def refuse_listing_name(name: str) -> None:
    """Refuse a --name the listing may not have, before anything is read: the import refused it
    at the write, after classifying the whole feed, and --dry-run recorded it (audit N1)."""
    from ..corpus.fields import Fields
    from ..corpus.model import MAX_NAME

    f = Fields({"name": name}, "--name", None, ("name",))
    f.text("name", required=True, limit=MAX_NAME, plain=True)  # as Listing.from_dict reads it
    if f.problems:
        raise SurveyError(f"--name {f.problems.kept[0].message}")


def cmd_check(args: argparse.Namespace) -> int:
    from ..corpus.check import check_corpus
    from ..corpus.journal import tidy

    for note in tidy(Path(args.corpus)):
        print(f"survey check: {note}")
    corpus, problems = check_corpus(Path(args.corpus))
    for hidden in corpus.ignored:
        print(f"survey check: {hidden}: a hidden file, not read")
    for line in problems.lines():
        print(line, file=sys.stderr)
    if problems:
        print(f"survey check: {len(problems):,} problem(s)", file=sys.stderr)
        return 1
    print(f"survey check: {len(corpus.papers)} papers, {len(corpus.listings)} listings, "
          f"{len(corpus.taxonomy.topics)} topics, {len(corpus.taxonomy.tags)} tags: all valid")
    if args.review:  # one list of what waits for a person: survey review's
        sitting = Sitting(Path(args.corpus))
        print_queue(sitting)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from ..classify.derived import attach
    from ..corpus.export import to_csv, to_json
    from ..corpus.store import load_corpus
    from .outputs import output_path, write_output

    path = args.output and output_path(args.output, "an export", corpus=args.corpus)
    corpus = load_corpus(args.corpus)
    attach(corpus)  # the model's confidence in the topics nobody reviewed, as the site's exports
    text = to_json(corpus) if args.format == "json" else to_csv(corpus)
    if path:
        write_output(path, text, "the export")
    else:
        raw(sys.stdout, text)  # the data asked for, as written to a file
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from ..classify.derived import attach
    from ..corpus.store import load_corpus
    from ..site.render import Site

    project = project_of(Path(args.corpus))
    templates = Path(args.templates) if args.templates else project / "templates"
    if not templates.is_dir():
        raise SurveyError(f"{shown_path(templates)}: no templates folder here (--templates DIR names it)")
    corpus = load_corpus(args.corpus)
    attach(corpus)
    settings = read_settings(project / "mkdocs.yml")
    site = Site(corpus, templates, site_url=args.site_url or settings.url, site_name=settings.name,
                publish_waiting=settings.publish_waiting)
    pages = site.pages()
    out = Path(args.out)
    for rel, text in {**pages, **site.files()}.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"survey build: {len(pages)} pages written to {out}")
    return 0


def project_of(corpus: Path) -> Path:
    """The survey project a corpus folder is in: the nearest folder above it with a mkdocs.yml,
    else the working directory, else the project of this code. `survey build` looked for
    templates/ under the working directory only: a TemplateNotFound traceback from any other."""
    try:
        here = Path(os.path.abspath(corpus))
    except OSError:  # no working directory (a shell left in a removed folder)
        here = corpus
    for folder in (*here.parents, Path("."), Path(__file__).resolve().parents[2]):
        if (folder / "mkdocs.yml").is_file():
            return folder
    return Path(".")


def cmd_enrich(args: argparse.Namespace) -> int:
    from ..corpus.store import load_corpus
    from ..sources.enrich import WEB_SOURCES, Enricher, Web, file_records
    from .outputs import output_path, write_output

    web_names = [] if args.web.strip() == "none" else [s.strip() for s in args.web.split(",") if s.strip()]
    unknown = [s for s in web_names if s not in WEB_SOURCES]
    if unknown:
        raise SurveyError(f"--web: unknown source {unknown[0]!r}; use {', '.join(WEB_SOURCES)} or none")
    report = args.report and output_path(args.report, "an enrich report", corpus=args.corpus,
                                         inputs=args.files)
    corpus = load_corpus(args.corpus)
    web = Web(Path(args.cache), today(), offline=args.offline, delay=args.delay) if web_names else None
    enricher = Enricher(corpus, web, web_names, confirm=args.confirm)
    papers = enricher.candidates(args.paper)
    for path in args.files:
        enricher.from_files(file_records(Path(path), today(), enricher.report.notes), papers)
    if web_names:
        todo = [p for p in papers if enricher.still_lacking(p.slug)]
        enricher.from_web(todo, args.limit, Progress("asking"))
    enricher.finish(papers)
    failed = enricher.nothing_reachable() or enricher.unconfirmed()
    if not args.dry_run and not failed:
        enricher.write()
    print(enricher.report.summary())
    if failed:
        raise SurveyError(failed)
    if report:
        write_output(report, enricher.report.markdown(), "the enrich report")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from ..sources.add import run_add

    return run_add(args, today())


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "import": cmd_import, "check": cmd_check, "export": cmd_export, "explain": cmd_explain,
    "classify": cmd_classify, "quality": cmd_quality, "train": cmd_train, "build": cmd_build, "add": cmd_add,
    "enrich": cmd_enrich, "review": cmd_review, "fetch": cmd_fetch,
}

__all__ = ["main"]
