"""A hostile pull request (issues 31, 36): a pull request commits files into the writer's own
`corpus/.survey-write/` (links included: git stores them, and `.gitignore` does not stop
`git add -f`), and the steps of .github/workflows/pull-request.yml and deploy.yml run on the
checkout. Two gates stop it, each shown by one artifact: git's (a `.survey-write/` that git
tracks fails `survey check`: the hidden change shows in review), and, where there is no git to
ask (an archive of the repository), the journal's own rules (no link followed, nothing but the
corpus's own files; tests/test_recovery.py tries each kind of link and file). Nothing outside
the corpus changes, no paper changes, and the run fails in one line.

Quick: a project of three papers; the steps that are `survey` commands run in-process, and one
test each runs the real `survey check` and `mkdocs build` in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_corpus, make_project, survey_process

from generator.cli.main import main

WORKFLOWS = ["pull-request.yml", "deploy.yml"]
PAPERS = ["2bp-2-stage-backpropagation", "rewrite-the-stars",
          "zero-infinity-breaking-the-gpu-memory-wall-for-extreme-scale"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=PR", "-c", "user.email=pr@example.org", *args],
                          cwd=cwd, check=True, capture_output=True, text=True, timeout=60).stdout


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The survey's repository, small: its site sources, workflows and three papers."""
    if not shutil.which("git"):
        pytest.skip("needs git")
    tmp = tmp_path_factory.mktemp("origin")
    project = make_project(tmp, make_corpus(tmp / "corpus", "papers", PAPERS))
    shutil.copytree(ROOT / ".github", project / ".github")
    shutil.copy(ROOT / ".gitignore", project / ".gitignore")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "the survey")
    return project


def staged(corpus: Path, files: dict[str, bytes | str]) -> None:
    """A `.survey-write/` as a writer leaves it after its commit point: staged bytes, or links
    (a str is the target of a link), and a manifest naming each with its SHA-256."""
    staging = corpus / ".survey-write"
    entries = []
    for rel, content in files.items():
        path = staging / "files" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.symlink_to(content)
            data = path.read_bytes() if path.is_file() else b""
        else:
            path.write_bytes(content)
            data = content
        entries.append({"path": rel, "sha256": hashlib.sha256(data).hexdigest()})
    manifest = {"command": "survey import feed.json", "pid": 4242, "since": "2026-01-01T00:00:00Z",
                "files": entries}
    (staging / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def link_out(repo: Path) -> None:
    """A staged paper that is a link to a file outside the repository."""
    secret = os.path.relpath(repo.parent / "outside/secret.yaml", repo / "corpus/.survey-write/files/papers")
    staged(repo / "corpus", {"papers/stolen.yaml": secret})


def replaced_paper(repo: Path) -> None:
    """Only .survey-write/ changes: a replay would publish a paper the repository does not hold."""
    paper = (repo / "corpus" / "papers" / f"{PAPERS[1]}.yaml").read_text(encoding="utf-8")
    staged(repo / "corpus", {f"papers/{PAPERS[1]}.yaml":
                             paper.replace("title: ", "title: Buy Our Product. ", 1).encode()})


def lock_folder(repo: Path) -> None:
    """A `.survey-lock` folder (git keeps a folder by its files) blocks every writer."""
    (repo / "corpus" / ".survey-lock").mkdir()
    (repo / "corpus" / ".survey-lock" / "keep").write_text("", encoding="utf-8")


# Each artifact, whether the checkout has git to ask, and how survey check names what it refuses.
ARTIFACTS: dict[str, tuple[Callable[[Path], None], bool, str]] = {
    "a replacement paper, committed": (replaced_paper, True, "tracked by git"),
    "a staged link out of the repository, in an archive without git": (
        link_out, False, "corpus/.survey-write/files/papers/stolen.yaml is a link"),
}


def pull_request(origin: Path, tmp: Path, change: Callable[[Path], None], with_git: bool = True) -> Path:
    """The repository as CI checks out a pull request that made `change` and committed it all;
    or, without git, as an archive of that commit unpacks."""
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.yaml").write_text("slug: secret\ntitle: not for the site\n", encoding="utf-8")
    fork = tmp / "fork"
    git(tmp, "clone", "-q", str(origin), str(fork))
    change(fork)
    git(fork, "add", "-f", "-A")
    git(fork, "commit", "-q", "-m", "a pull request")
    checkout = tmp / "checkout"
    if with_git:
        git(tmp, "clone", "-q", str(fork), str(checkout))
    else:
        checkout.mkdir()
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=fork, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive, check=True)
    return checkout


def files(folder: Path, skip: tuple[Path, ...] = ()) -> dict[str, bytes]:
    """Every file below folder and where every link points, links not followed."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d not in skip]
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            path = here / name
            key = str(path.relative_to(folder))
            out[key] = (b"-> " + os.readlink(path).encode()) if path.is_symlink() else path.read_bytes()
    return out


def steps(name: str) -> list[tuple[str, dict[str, str]]]:
    """The commands of a workflow's steps, in order, with their environment; not the steps that
    install (the test's environment is installed) nor the test suite (this is part of it)."""
    workflow = yaml.load((ROOT / ".github" / "workflows" / name).read_text(), Loader=yaml.BaseLoader)
    out = []
    for job in workflow["jobs"].values():
        for step in job.get("steps", []):
            run = step.get("run", "").strip()
            if run and not run.startswith(("pip ", "sudo ")) and "pip install" not in run \
                    and run != "python -m pytest":
                out.append((run, step.get("env", {})))
    return out


def run_workflow(name: str, checkout: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, int, str]:
    """Run the workflow's steps as its job does, stopping at the first that fails: `survey`
    commands in-process, the others in a shell. Returns that step, its exit code and output."""
    for command, env in steps(name):
        if command.startswith("survey ") and "\n" not in command:
            cwd = os.getcwd()
            os.chdir(checkout)
            try:
                code = main(shlex.split(command)[1:])
            finally:
                os.chdir(cwd)
            out = capsys.readouterr()
            output = out.err + out.out
        else:
            result = subprocess.run(["bash", "-e", "-c", command], cwd=checkout, capture_output=True,
                                    text=True, env={**os.environ, **env}, timeout=300)
            code, output = result.returncode, result.stderr + result.stdout
        if code != 0:
            return command, code, output
    return "", 0, ""


@pytest.mark.parametrize("artifact", sorted(ARTIFACTS))
def test_a_pull_request_that_commits_a_writers_file_fails_ci_in_one_line_and_changes_nothing(
        origin: Path, tmp_path: Path, artifact: str, capsys: pytest.CaptureFixture[str]) -> None:
    change, with_git, said = ARTIFACTS[artifact]
    checkout = pull_request(origin, tmp_path, change, with_git)
    corpus = checkout / "corpus"
    skip = (corpus, checkout / "site")  # the site is what the build writes
    outside = files(tmp_path, skip=skip)
    papers = files(corpus / "papers")
    for workflow in WORKFLOWS:
        step, code, output = run_workflow(workflow, checkout, capsys)
        changed = files(tmp_path, skip=skip).items() ^ outside.items()
        assert not changed, (workflow, output, sorted(changed)[:3])
        assert files(corpus / "papers") == papers, (workflow, output)
        assert (step, code) == ("survey check", 1), (workflow, output)
        assert output.count("\n") == 1 and "Traceback" not in output, (workflow, output)
        assert output.startswith(f"survey check: corpus/.survey-write: {said}"), output
        assert "remove it" in output, output
        assert "\x1b" not in output


def test_the_same_pull_request_without_the_artifact_passes_ci(
        origin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The runner above is real: a pull request that adds a paper passes both workflows."""
    def add_paper(repo: Path) -> None:
        (repo / "corpus" / "papers" / "a-new-paper.yaml").write_text(
            "slug: a-new-paper\ntitle: A New Paper\nabstract: We shard checkpoints.\ntopics: []\ntags: []\n"
            "curated: [topics]\n",  # reviewed as none of the four: on the site
            encoding="utf-8")

    checkout = pull_request(origin, tmp_path, add_paper)
    for workflow in WORKFLOWS:
        assert run_workflow(workflow, checkout, capsys)[:2] == ("", 0), workflow
    assert (checkout / "site" / "papers" / "a-new-paper" / "index.html").is_file()


def test_the_real_survey_check_fails_in_one_line(origin: Path, tmp_path: Path) -> None:
    checkout = pull_request(origin, tmp_path, replaced_paper)
    result = survey_process("check", cwd=checkout)
    assert result.returncode == 1 and result.stdout == "", result.stderr
    assert result.stderr.startswith("survey check: corpus/.survey-write: ") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("change", [replaced_paper, lock_folder], ids=["manifest", "lock"])
def test_mkdocs_build_alone_refuses_in_one_line_and_reads_nothing_of_it(
        origin: Path, tmp_path: Path, change: Callable[[Path], None]) -> None:
    """Were `survey check` left out of a workflow, the build still refuses the corpus in one line
    and applies nothing."""
    checkout = pull_request(origin, tmp_path, change)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=checkout,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and "corpus/.survey-" in errors[0], result.stderr
