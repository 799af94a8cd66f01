"""The GitHub workflow files: valid YAML, the right triggers, and commands that exist here.

actionlint cannot be installed on this machine (its PyPI package downloads a binary at build
time), so these checks stand in for it.
"""

from __future__ import annotations

import shlex
import shutil

import pytest
import yaml
from conftest import ROOT, survey

WORKFLOWS = ROOT / ".github" / "workflows"
OFFICIAL = {"actions/checkout", "actions/setup-python", "actions/configure-pages",
            "actions/upload-pages-artifact", "actions/deploy-pages", "actions/cache",
            "actions/cache/restore", "actions/upload-artifact"}  # cache/restore: cache's, without a save


def load(name: str) -> dict:
    data = yaml.load((WORKFLOWS / name).read_text(), Loader=yaml.BaseLoader)  # "on" stays a key
    assert isinstance(data, dict) and "jobs" in data
    return data


def commands(workflow: dict) -> list[str]:
    out = []
    for job in workflow["jobs"].values():
        for step in job.get("steps", []):
            for line in step.get("run", "").splitlines():
                if line.strip():
                    out.append(line.strip())
    return out


@pytest.mark.parametrize("name", ["pull-request.yml", "deploy.yml", "enrich.yml", "fetch.yml"])
def test_workflow_is_well_formed(name: str) -> None:
    workflow = load(name)
    assert workflow["name"]
    for job_id, job in workflow["jobs"].items():
        assert job.get("runs-on") == "ubuntu-latest", job_id
        assert job["steps"], job_id
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                action, _, version = step["uses"].partition("@")
                assert action in OFFICIAL and version.startswith("v"), step["uses"]


def test_pull_requests_check_the_corpus_test_and_build_strictly() -> None:
    workflow = load("pull-request.yml")
    assert "pull_request" in workflow["on"]
    run = commands(workflow)
    assert "survey check" in run
    assert "python -m pytest" in run
    assert "mkdocs build --strict" in run


def test_push_to_main_deploys_with_the_official_pages_actions() -> None:
    workflow = load("deploy.yml")
    assert workflow["on"]["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    uses = [s["uses"].split("@")[0] for j in workflow["jobs"].values() for s in j["steps"] if "uses" in s]
    assert uses[-3:] == ["actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"]
    build = workflow["jobs"]["build"]["steps"]
    artifact = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert artifact["with"]["path"] == "site"
    assert "mkdocs build --strict --site-dir site" in commands(workflow)


@pytest.mark.parametrize("name", ["pull-request.yml", "deploy.yml", "enrich.yml", "fetch.yml"])
def test_the_commands_they_run_exist(name: str) -> None:
    for line in commands(load(name)):
        program = shlex.split(line)[0]
        if program in ("sudo", "pip", "survey", "mkdocs", "python"):
            assert shutil.which(program) or program == "sudo", program
        if program == "survey":
            assert survey(*shlex.split(line)[1:], "--help").returncode == 0, line


@pytest.mark.parametrize(("name", "command"), [("enrich.yml", "survey enrich"),
                                               ("fetch.yml", "survey fetch")])
def test_a_weekly_workflow_checks_builds_and_opens_a_pull_request(name: str, command: str) -> None:
    """What fetch.yml does on recorded answers: tests/test_fetch.py runs its steps."""
    workflow = load(name)
    assert workflow["on"]["schedule"][0]["cron"] and "workflow_dispatch" in workflow["on"]
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    run = commands(workflow)
    changes = next(i for i, line in enumerate(run) if line.startswith(command))
    check = run.index("survey check")
    build = next(i for i, line in enumerate(run) if line.startswith("mkdocs build --strict"))
    pr = next(i for i, line in enumerate(run) if line.startswith("gh pr create"))
    assert changes < check < build < pr  # a pull request only for a corpus that checks and builds
    assert "--body-file" in run[pr] and "--report" in run[changes]
    # GitHub's expressions only in an environment, never in a script's text
    assert not any("${{" in step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"])


def test_pull_request_template_has_a_checklist() -> None:
    text = (ROOT / ".github" / "pull_request_template.md").read_text()
    assert text.count("- [ ]") >= 4 and "survey check" in text
