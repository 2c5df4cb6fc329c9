"""The field run: mcp-toolfuzz on published MCP servers, each finding re-asked by a raw probe.

    python benchmarks/field/field.py all SCRATCH          # install, run, probe, then compare with results.json
    python benchmarks/field/field.py install SCRATCH      # npm ci and one virtual environment per PyPI server
    python benchmarks/field/field.py run SCRATCH [--only NAME,...]
    python benchmarks/field/field.py probe SCRATCH [--only NAME,...]
    python benchmarks/field/field.py compare SCRATCH      # this run's findings against the committed results.json
    python benchmarks/field/field.py save SCRATCH         # this run's results become results.json and results.md

SCRATCH is a directory outside the repository; everything is installed and written there. Each
server runs in a sandbox (bubblewrap: `apt-get install bubblewrap`): the whole file system
read-only but for the server's own directory `SCRATCH/work/NAME`, a private `/tmp`, no network
(a network namespace of its own, loopback only), HOME and TMPDIR inside its directory, and an
environment with nothing but PATH, HOME, TMPDIR, LANG and the placeholders `servers.py` gives.

Each server is fuzzed by `mcp-toolfuzz run --seed 1` at the defaults (`--no-progress`, its JSON
report and corpus in `SCRATCH/out/NAME`; `--max-examples` lower only where `MAX_EXAMPLES` says).
Then `probe.py` (standard library only) starts the server again, in the same sandbox, and sends
each problem's first finding's request alone, after a plain handshake, and judges the answer.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from probe import probe_finding  # noqa: E402
from servers import BY_NAME, SERVERS, Server  # noqa: E402

SEED = 1
MAX_EXAMPLES: dict[str, int] = {}
"""Servers fuzzed with a lower --max-examples than the default (a default run took > 3 min)."""
RESULTS_JSON = HERE / "results.json"
RESULTS_MD = HERE / "results.md"


def harness() -> list[str]:
    """$FIELD_HARNESS, else the mcp-toolfuzz of this checkout's .venv, else the one on PATH."""
    if os.environ.get("FIELD_HARNESS"):
        return [os.environ["FIELD_HARNESS"]]
    local = ROOT / ".venv" / "bin" / "mcp-toolfuzz"
    if local.exists():
        return [str(local)]
    found = shutil.which("mcp-toolfuzz")
    if found is None:
        raise SystemExit("mcp-toolfuzz not found: install the repository (pip install -e .) into .venv, or name it in FIELD_HARNESS")
    return [found]


def paths(scratch: Path, server: Server) -> dict[str, Path]:
    return {
        "npm": scratch / "npm",
        "venv": scratch / "venvs" / server.name,
        "work": scratch / "work" / server.name,
        "out": scratch / "out" / server.name,
    }


def expand(text: str, where: dict[str, Path]) -> str:
    return text.format(**{key: str(value) for key, value in where.items()})


def sandboxed(scratch: Path, server: Server) -> list[str]:
    """The server's command inside bubblewrap, its environment given with `env -i`."""
    where = paths(scratch, server)
    work = where["work"]
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(work / "home"),
        "TMPDIR": str(work / "tmp"),
        "LANG": "C.UTF-8",
        **{key: expand(value, where) for key, value in server.env.items()},
    }
    wrap = [
        "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--bind", str(work), str(work),
        "--unshare-net",
        "--chdir", str(work),
    ]  # fmt: skip
    # No --die-with-parent: it sets PR_SET_PDEATHSIG, which fires when the *thread* that started
    # bwrap ends, and the harness (trio) starts its targets from worker threads that end when idle.
    # A target wrapped that way is killed (SIGKILL) at random, seen as target-alive findings.
    return ["env", "-i", *(f"{key}={value}" for key, value in env.items()), *wrap, *(expand(part, where) for part in server.command)]


def prepare_work(scratch: Path, server: Server) -> None:
    """A fresh scratch directory for the server, with what its setup needs."""
    work = paths(scratch, server)["work"]
    if work.exists():
        shutil.rmtree(work)
    for sub in ("home", "tmp"):
        (work / sub).mkdir(parents=True)
    if server.setup == "files":
        files = work / "files"
        files.mkdir()
        (files / "notes.txt").write_text("one\ntwo\nthree\n")
        (files / "sub").mkdir()
        (files / "sub" / "data.json").write_text('{"a": 1}\n')
    elif server.setup == "git-repo":
        repo = work / "repo"
        repo.mkdir()
        git_env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "field",
            "GIT_AUTHOR_EMAIL": "field@example.invalid",
            "GIT_COMMITTER_NAME": "field",
            "GIT_COMMITTER_EMAIL": "field@example.invalid",
            "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
            "GIT_CONFIG_GLOBAL": "/dev/null",
        }
        (repo / "README.md").write_text("field run\n")
        for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "first"]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, env=git_env)


# --- install -------------------------------------------------------------------------------


def install(scratch: Path, only: set[str] | None) -> None:
    scratch.mkdir(parents=True, exist_ok=True)
    npm = scratch / "npm"
    if only is None or any(BY_NAME[name].registry == "npm" for name in only):
        npm.mkdir(exist_ok=True)
        shutil.copy(HERE / "package.json", npm / "package.json")
        shutil.copy(HERE / "package-lock.json", npm / "package-lock.json")
        print("npm ci (pinned by package-lock.json)", flush=True)
        subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=npm, check=True)
    for server in SERVERS:
        if server.registry != "pypi" or (only is not None and server.name not in only):
            continue
        venv = paths(scratch, server)["venv"]
        lock = HERE / "locks" / f"{server.name}.txt"
        if venv.exists():
            shutil.rmtree(venv)
        print(f"{server.name}: venv, pip install --no-deps -r locks/{lock.name}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, "--no-deps", "-r", str(lock)], check=True)
        if server.executable:
            (venv / server.executable).chmod(0o755)


def lock(scratch: Path, only: set[str] | None) -> None:
    """Maintainers: install each PyPI server at its pinned version, and freeze what came."""
    (HERE / "locks").mkdir(exist_ok=True)
    for server in SERVERS:
        if server.registry != "pypi" or (only is not None and server.name not in only):
            continue
        venv = paths(scratch, server)["venv"]
        if not venv.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"{server.package}=={server.version}"], check=True)
        frozen = subprocess.run([str(venv / "bin" / "pip"), "freeze", "--all"], check=True, capture_output=True, text=True).stdout
        (HERE / "locks" / f"{server.name}.txt").write_text(frozen)


# --- run -----------------------------------------------------------------------------------


def run_one(scratch: Path, server: Server) -> dict[str, Any]:
    where = paths(scratch, server)
    out = where["out"]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    prepare_work(scratch, server)
    command = [*harness(), "run", "--seed", str(SEED), "--no-progress", "--report", "json:report.json", "--corpus", "corpus"]
    if server.name in MAX_EXAMPLES:
        command += ["--max-examples", str(MAX_EXAMPLES[server.name])]
    command += [*server.options, "--", *sandboxed(scratch, server)]
    started = time.monotonic()
    with (out / "terminal.txt").open("w") as terminal:
        completed = subprocess.run(command, cwd=out, stdout=terminal, stderr=subprocess.STDOUT, timeout=1800)
    seconds = time.monotonic() - started
    report_path = out / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return summarize(server, report, completed.returncode, seconds, (out / "terminal.txt").read_text())


def summarize(server: Server, report: dict[str, Any] | None, exit_code: int, seconds: float, terminal: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": server.name,
        "registry": server.registry,
        "package": server.package,
        "version": server.version,
        "sdk": server.sdk,
        "language": server.language,
        "note": server.note,
        "maxExamples": MAX_EXAMPLES.get(server.name),
        "options": list(server.options),
        "exitCode": exit_code,
        "seconds": round(seconds, 1),
    }
    if report is None:
        entry["error"] = terminal.strip().splitlines()[-5:]
        return entry
    info = report.get("serverInfo") or {}
    entry["serverInfo"] = {"name": info.get("name"), "version": info.get("version")}
    entry["protocolVersion"] = report.get("protocolVersion")
    tools = [tool for tool in report["tools"] if tool.get("name") and not tool["name"].startswith("(")]  # not (envelope), (sequences), ...
    entry["tools"] = [tool["name"] for tool in tools]
    entry["cases"] = sum(sum(tool["casesSent"].values()) for tool in report["tools"])
    entry["argumentCasesSkipped"] = sorted(
        tool["name"] for tool in tools if any(kind in skipped for skipped in tool.get("skipped", []) for kind in ("valid-arguments", "invalid-arguments"))
    )
    entry["skipped"] = {tool["name"]: tool["skipped"] for tool in tools if tool.get("skipped")}
    entry["warnings"] = report.get("warnings", [])
    entry["targetRestarts"] = report.get("targetRestarts")
    findings = report["findings"]
    problems = []
    for problem in report["problems"]:
        first = findings[problem["findings"][0]]
        problems.append(
            {
                "rule": problem["rule"],
                "level": problem["level"],
                "case": problem["case"],
                "answer": problem["answer"],
                "tools": [tool if tool is not None else "(envelope)" for tool in problem["tools"]],
                "findings": len(problem["findings"]),
                "example": {
                    "tool": first.get("tool"),
                    "label": first.get("label"),
                    "why": first.get("why"),
                    "request": first.get("request"),
                    "response": first.get("response"),
                    "steps": len(first.get("steps") or []),
                },
            }
        )
    entry["problems"] = problems
    return entry


def load_scratch_results(scratch: Path) -> dict[str, Any]:
    """This run's results: each server's `out/NAME/summary.json` (made from its report when missing)."""
    servers: dict[str, Any] = {}
    for server in SERVERS:
        out = paths(scratch, server)["out"]
        summary = out / "summary.json"
        if summary.exists():
            servers[server.name] = json.loads(summary.read_text())
        elif (out / "terminal.txt").exists():
            report_path = out / "report.json"
            report = json.loads(report_path.read_text()) if report_path.exists() else None
            exit_code = report["exitCode"] if report else -1
            seconds = report["seconds"] if report else 0.0
            servers[server.name] = summarize(server, report, exit_code, seconds, (out / "terminal.txt").read_text())
    return {"servers": servers}


def store_entry(scratch: Path, entry: dict[str, Any]) -> None:
    out = paths(scratch, BY_NAME[entry["name"]])["out"]
    (out / "summary.json").write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n")


def run(scratch: Path, only: set[str] | None) -> None:
    for server in SERVERS:
        if only is not None and server.name not in only:
            continue
        print(f"{server.name}: fuzzing ...", flush=True)
        entry = run_one(scratch, server)
        store_entry(scratch, entry)
        problems = entry.get("problems")
        counted = len(problems) if problems is not None else "no report"
        print(f"{server.name}: exit {entry['exitCode']}, {entry.get('cases', 0)} cases, {counted} problems, {entry['seconds']} s", flush=True)


# --- probe ---------------------------------------------------------------------------------


def probe(scratch: Path, only: set[str] | None) -> None:
    results = load_scratch_results(scratch)
    for name, entry in results["servers"].items():
        if only is not None and name not in only:
            continue
        server = BY_NAME[name]
        for problem in entry.get("problems", []):
            prepare_work(scratch, server)
            problem["probe"] = probe_finding(sandboxed(scratch, server), entry["protocolVersion"], problem, cwd=paths(scratch, server)["work"])
            print(f"{name}: {problem['rule']}: {problem['probe']['verdict']} ({problem['probe']['answer']})", flush=True)
        store_entry(scratch, entry)


# --- compare and save ----------------------------------------------------------------------


def key_of(entry: dict[str, Any]) -> dict[str, Any]:
    """What a rerun must give again: the tools, and each problem (rule, level, answer, tools)."""
    return {
        "tools": entry.get("tools"),
        "error": bool(entry.get("error")),
        "problems": sorted(
            (problem["rule"], problem["level"], problem["answer"], tuple(problem["tools"]), problem.get("probe", {}).get("verdict"))
            for problem in entry.get("problems", [])
        ),
    }


def compare(scratch: Path) -> int:
    committed = json.loads(RESULTS_JSON.read_text())["servers"]
    fresh = load_scratch_results(scratch)["servers"]
    differences = 0
    for name in BY_NAME:
        if name not in committed and name not in fresh:
            continue
        if name not in fresh:
            print(f"{name}: not in this run")
            differences += 1
            continue
        if name not in committed:
            print(f"{name}: not in results.json")
            differences += 1
            continue
        old, new = key_of(committed[name]), key_of(fresh[name])
        if old == new:
            print(f"{name}: same ({len(new['problems'])} problems; cases {committed[name].get('cases')} then, {fresh[name].get('cases')} now)")
            continue
        differences += 1
        print(f"{name}: DIFFERENT")
        for field in ("tools", "error"):
            if old[field] != new[field]:
                print(f"  {field}: {old[field]} then, {new[field]} now")
        for problem in sorted(set(old["problems"]) - set(new["problems"])):
            print(f"  only then: {problem}")
        for problem in sorted(set(new["problems"]) - set(old["problems"])):
            print(f"  only now:  {problem}")
    print(f"{differences} servers differ from results.json")
    return 1 if differences else 0


def save(scratch: Path) -> None:
    results = load_scratch_results(scratch)
    results["seed"] = SEED
    # No path of this machine in what is committed: the scratch directory is called SCRATCH.
    text = json.dumps(results, indent=1, ensure_ascii=False).replace(json.dumps(str(scratch))[1:-1], "SCRATCH")
    RESULTS_JSON.write_text(text + "\n")
    results = json.loads(text)
    RESULTS_MD.write_text(render(results))


def short(text: str, limit: int = 90) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(results: dict[str, Any]) -> str:
    """The page's tables, from results.json."""
    lines = [
        "| server | version | SDK | revision | tools | cases | problems (rule, level) | not exercised |",
        "|---|---|---|---|---|---|---|---|",
    ]
    details: list[str] = []
    for name, entry in results["servers"].items():
        if entry.get("error"):
            last = " ".join(entry["error"]).split(" | ")[-1]  # the target's last stderr line
            lines.append(
                f"| {name} | {entry['package']} {entry['version']} | {entry['sdk']} | – | – | – | none: it exits at start ({cell(short(last))}) | everything |"
            )
            continue
        problems = entry["problems"]
        summary = (
            "<br>".join(
                f"`{p['rule']}` {p['level']} ({len(p['tools'])} tools)" if len(p["tools"]) > 1 else f"`{p['rule']}` {p['level']} (`{p['tools'][0]}`)"
                for p in problems
            )
            or "none"
        )
        skipped = entry["argumentCasesSkipped"]
        not_exercised = f"argument cases of {len(skipped)} of {len(entry['tools'])} tools (not annotated read-only or non-destructive)" if skipped else ""
        if entry.get("note"):
            not_exercised = "; ".join(part for part in (not_exercised, entry["note"]) if part)
        extra = f" (`--max-examples {entry['maxExamples']}`)" if entry.get("maxExamples") else ""
        cases = f"{entry['cases']}{extra}"
        lines.append(
            f"| {name} | {entry['package']} {entry['version']} | {entry['sdk']} | {entry['protocolVersion']} | {len(entry['tools'])} | {cases} "
            f"| {summary} | {cell(not_exercised) or '–'} |"
        )
        for problem in problems:
            example = problem["example"]
            verdict = problem.get("probe", {})
            details.append(
                f"| {name} | `{problem['rule']}` | {problem['level']} | {problem['findings']} on {', '.join(f'`{tool}`' for tool in problem['tools'])} | "
                f"{cell(short(example['label'] or problem['case'], 60))} | {cell(short(problem['answer'], 60))} | "
                f"{verdict.get('verdict', 'not probed')}: {cell(short(verdict.get('answer', ''), 90))} |"
            )
    out = ["<!-- Made by benchmarks/field/field.py save from results.json: do not edit by hand. -->", "", *lines, ""]
    if details:
        out += [
            "Each problem, its first finding's case, the harness's answer, and what the raw probe got when it sent that request alone:",
            "",
            "| server | rule | level | findings | case | answer | probe |",
            "|---|---|---|---|---|---|---|",
            *details,
            "",
        ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["all", "install", "lock", "run", "probe", "compare", "save", "table"])
    parser.add_argument("scratch", type=Path, nargs="?")
    parser.add_argument("--only", help="these servers only (comma-separated names from servers.py)")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if only is not None and only - set(BY_NAME):
        parser.error(f"unknown servers: {sorted(only - set(BY_NAME))}")
    if args.step == "table":
        RESULTS_MD.write_text(render(json.loads(RESULTS_JSON.read_text())))
        return 0
    if args.scratch is None:
        parser.error("SCRATCH is needed")
    scratch = args.scratch.resolve()
    if scratch == ROOT or ROOT in scratch.parents:
        parser.error("SCRATCH must be outside the repository")
    if scratch == Path("/tmp") or Path("/tmp") in scratch.parents:
        parser.error("SCRATCH must not be under /tmp: the sandbox gives each server a /tmp of its own, which would hide it")
    if args.step in ("all", "install"):
        install(scratch, only)
    if args.step == "lock":
        lock(scratch, only)
    if args.step in ("all", "run"):
        run(scratch, only)
    if args.step in ("all", "probe"):
        probe(scratch, only)
    if args.step in ("all", "compare"):
        return compare(scratch)
    if args.step == "save":
        save(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
