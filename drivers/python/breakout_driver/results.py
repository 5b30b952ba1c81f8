"""Reads a breakout results.json defensively and says what each execution means for a test run."""
# results.json carries text the sandboxed side shaped (reasons, evidence, excerpts): everything
# read here is bounded (file size, executions, each text) and made printable before it is shown.
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

SCHEMA = "breakout.results/1"
MAX_RESULTS_BYTES = 64 * 1024 * 1024
MAX_EXECUTIONS = 100_000
MAX_ID_CHARS = 300
MAX_TEXT_CHARS = 2000
MAX_EVIDENCE_CHARS = 2000
VERDICTS = ("pass", "escape", "overblock", "broken", "error", "skip")
FAILING = ("escape", "overblock", "broken", "error")


class ResultsError(Exception):
    """results.json is missing, too big, not JSON or not the breakout.results/1 shape."""


def printable(value: Any, limit: int = MAX_TEXT_CHARS) -> str:
    """`value` as one bounded line: control, format and separator characters become \\xNN / \\uNNNN
    escapes (no terminal escape sequence, no bidi override, no fake newline reaches a report)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    out, size = [], 0
    for i, ch in enumerate(text):
        piece = ch if ch.isprintable() else _escape(ch)
        if size + len(piece) > limit:
            return "".join(out) + f"... ({len(text) - i} more characters)"
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _escape(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


@dataclass(frozen=True)
class Outcome:
    """What one execution means for a test: ``status`` is passed, failed or skipped."""

    id: str
    verdict: str
    status: str
    message: str


@dataclass
class Results:
    """A parsed results.json: the run facts a reproduce command needs, and the executions."""

    spawner_arg: str
    suite_arg: str
    real_host: bool
    interrupted: bool
    summary: Mapping[str, Any]
    attempts: list[Mapping[str, Any]] = field(default_factory=list)


def load(path: Path) -> Results:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RESULTS_BYTES + 1)
    except OSError as e:
        raise ResultsError(f"cannot read {path}: {printable(str(e))}") from e
    if len(data) > MAX_RESULTS_BYTES:
        raise ResultsError(f"{path} is larger than {MAX_RESULTS_BYTES} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:  # RecursionError: nesting deeper than the parser's stack
        raise ResultsError(f"{path} is not JSON: {printable(str(e), 200)}") from e
    return parse(doc, str(path))


def parse(doc: Any, where: str = "results.json") -> Results:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        schema = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise ResultsError(f"{where}: schema {printable(schema, 80)}, expected {SCHEMA}")
    attempts, run = doc.get("attempts"), doc.get("run")
    if not isinstance(attempts, list) or not isinstance(run, dict):
        raise ResultsError(f"{where}: 'attempts' must be a list and 'run' an object")
    if len(attempts) > MAX_EXECUTIONS:
        raise ResultsError(f"{where}: {len(attempts)} executions, more than {MAX_EXECUTIONS}")
    if not all(isinstance(a, dict) for a in attempts):
        raise ResultsError(f"{where}: every entry of 'attempts' must be an object")
    spawner = run.get("spawner") if isinstance(run.get("spawner"), dict) else {}
    summary = doc.get("summary") if isinstance(doc.get("summary"), dict) else {}
    return Results(spawner_arg=_str(spawner.get("arg")) or _str(spawner.get("name")),
                   suite_arg=_str(run.get("suite_arg")) or _str(run.get("suite")),
                   real_host=run.get("real_host") is True, interrupted=doc.get("interrupted") is True,
                   summary=summary, attempts=attempts)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def reproduce_command(results: Results, execution_id: str, prefix: Sequence[str] = ("breakout",)) -> str:
    """The command that runs this execution again (as harness/report/html_report.cc builds it);
    `prefix` is the binary and its global options (`--scenarios DIR`)."""
    spawner = printable(results.spawner_arg, 4000)
    how = (f"--driver {shlex.quote(spawner[len('--driver '):])}" if spawner.startswith("--driver ")
           else f"--spawner {shlex.quote(spawner)}")
    return (f"{shlex.join(prefix)} run {how} --suite {shlex.quote(printable(results.suite_arg, 1000))}"
            + (" --real-host" if results.real_host else "") + f" --only {shlex.quote(execution_id)}")


def outcomes(results: Results, prefix: Sequence[str] = ("breakout",)) -> list[Outcome]:
    """One Outcome per execution, in file order. Ids are printable, bounded and unique (a repeated
    id gets a `#N` suffix; run_problems reports the repetition)."""
    seen: dict[str, int] = {}
    out = []
    for a in results.attempts:
        raw_id = printable(a.get("id") or "(no id)", MAX_ID_CHARS)
        seen[raw_id] = seen.get(raw_id, 0) + 1
        ident = raw_id if seen[raw_id] == 1 else f"{raw_id}#{seen[raw_id]}"
        out.append(_outcome(results, a, ident, raw_id, prefix))
    return out


def _outcome(results: Results, a: Mapping[str, Any], ident: str, raw_id: str, prefix: Sequence[str]) -> Outcome:
    verdict, reason = _str(a.get("verdict")), printable(a.get("reason", ""))
    if verdict == "pass":
        return Outcome(ident, verdict, "passed", reason)
    if verdict == "skip":
        return Outcome(ident, verdict, "skipped", reason or "skipped (no reason given)")
    shown = verdict if verdict in VERDICTS else f"unknown verdict {printable(a.get('verdict'), 40)}"
    facts = ", ".join(f"{k} {printable(a.get(k), 120)}" for k in ("role", "class", "policy", "expected")
                      if isinstance(a.get(k), str))
    lines = [f"{shown}: {reason}", f"execution: {raw_id}" + (f" ({facts})" if facts else "")]
    if isinstance(a.get("expected_why"), str):
        lines.append(f"expected because: {printable(a['expected_why'], 300)}")
    lines.append(f"evidence: {printable(a.get('evidence', {}), MAX_EVIDENCE_CHARS)}")
    lines.append(f"reproduce: {reproduce_command(results, raw_id, prefix)}")
    return Outcome(ident, verdict, "failed", "\n".join(lines))


def expected_exit_status(results: Results) -> int:
    """The exit status `breakout run` gives these verdicts (docs/results.md), without --allow-all-skip."""
    verdicts = [a.get("verdict") for a in results.attempts]
    if "escape" in verdicts:
        return 3
    if any(v in ("overblock", "broken", "error") for v in verdicts) or any(v not in VERDICTS for v in verdicts):
        return 1
    return 0 if "pass" in verdicts else 5


def run_problems(results: Results, exit_status: int | None, allow_all_skip: bool) -> list[str]:
    """What makes the run itself untrustworthy, beyond each execution's own verdict."""
    problems = []
    if results.interrupted:
        problems.append("the run was interrupted: only part of the suite was judged")
    if not results.attempts:
        problems.append("the run has no executions: nothing was tested")
    elif not allow_all_skip and expected_exit_status(results) == 5:
        problems.append("nothing was judged: every execution skipped (--breakout-allow-all-skip accepts that)")
    counts = {v: sum(1 for a in results.attempts if a.get("verdict") == v) for v in VERDICTS}
    if results.summary and any(results.summary.get(v) != counts[v] for v in VERDICTS):
        problems.append(f"the summary {printable(dict(results.summary), 300)} does not match the executions "
                        f"{json.dumps(counts)}: the file is truncated or edited")
    ids = [a.get("id") for a in results.attempts]
    if len(set(map(str, ids))) != len(ids):
        problems.append("execution ids repeat: the file is merged twice or edited")
    if exit_status is not None and not results.interrupted:
        want = expected_exit_status(results)
        if exit_status != want and not (want == 5 and exit_status == 0 and allow_all_skip):
            problems.append(f"breakout exited {exit_status}, but the verdicts give {want}")
    return problems
