"""Reference verdicts: one run's claims.csv committed under docs/reference/, per device
profile and scale, and every later run compared with it.

    python -m mobifrag.report.reference write --from results/emulator-emmc/quick/claims.csv
    python -m mobifrag.report.reference compare results/emulator-emmc/quick/claims.csv \
        [--reference docs/reference/emulator-emmc-quick.csv] [--markdown OUT] [--strict]

A reference file is docs/reference/<device>-<scale>.csv: the run's claims.csv as the
claims checker wrote it, preceded by comment lines (`# key: value`) naming the run it
comes from: device, scale, commit, whether the checkout was dirty, the run's date (from
its provenance.json), the day it was written and the file it was copied from. A reader
skips the lines starting with `#` (pandas `comment="#"`, R `comment.char = "#"`).

`write` copies a finished run's claims.csv there; it refuses a run without provenance,
one made from a checkout with uncommitted changes and an unfinished one (the partial
report's claims.md says so) unless told to take it. `compare` lists every claim whose
verdict differs from the reference's, and the claims one of the two lacks; it exits 0
unless --strict is given and something differs, so a run that moved verdicts is shown,
not failed, by default.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag import REPO
from mobifrag.report import job_times
from mobifrag.report.markdown import markdown_table
from mobifrag.report.stability import StabilityError, value_text
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow import stages

REFERENCES = REPO / stages.REFERENCES
# The comment lines of a reference file, in the order they are written.
HEADER_KEYS = ("device", "scale", "commit", "dirty", "run_date", "written", "source")
# The summary line of an unfinished run's claims.md (mobifrag/report/partial.py).
UNFINISHED = "The run did not finish"
ABSENT = "absent"


class ReferenceError(ValueError):
    """A reference or run that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Table:
    """A claims.csv (a run's or a reference's): its header comments and rows by id."""

    path: Path
    meta: dict[str, str]
    rows: dict[str, dict] = field(default_factory=dict)

    def verdict(self, claim: str) -> str:
        row = self.rows.get(claim)
        return row["verdict"] if row else ABSENT

    def value(self, claim: str) -> str:
        row = self.rows.get(claim)
        return value_text(row) if row else "NA"


def reference_path(device: str, scale: str, folder: Path | None = None) -> Path:
    return Path(folder or REFERENCES) / stages.REFERENCE.format(device=device, scale=scale)


def read_table(path: Path) -> Table:
    """A claims.csv with or without the reference's comment lines; every problem is
    named with the file and line."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ReferenceError(f"{path}: {error}") from None
    meta: dict[str, str] = {}
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        key, colon, value = lines[start][1:].partition(":")
        if colon and key.strip() in HEADER_KEYS:
            meta[key.strip()] = value.strip()
        start += 1
    try:
        rows = list(csv.DictReader(lines[start:]))
    except csv.Error as error:
        raise ReferenceError(f"{path}: {error}") from None
    by_id: dict[str, dict] = {}
    for number, row in enumerate(rows, start=start + 2):
        if not row.get("id") or not row.get("verdict"):
            raise ReferenceError(f"{path}:{number}: no id or verdict")
        if None in row:
            raise ReferenceError(f"{path}:{number}: more fields than the header names")
        if row["id"] in by_id:
            raise ReferenceError(f"{path}:{number}: claim {row['id']} a second time")
        by_id[row["id"]] = row
    if not by_id:
        raise ReferenceError(f"{path}: no claims")
    return Table(path, meta, by_id)


# --- write ----------------------------------------------------------------------------


def run_facts(claims_csv: Path, provenance: Path) -> dict[str, str]:
    """device, scale, commit, dirty and run_date of the run whose claims.csv this is."""
    try:
        record = json.loads(Path(provenance).read_text())
    except (OSError, ValueError) as error:
        raise ReferenceError(
            f"{provenance}: {error}: a reference needs the run's provenance"
        ) from None
    config = record.get("config") or {}
    commit = str(record.get("commit") or "unknown")
    facts = {
        "device": str(config.get("device", "")),
        "scale": str(config.get("scale", "")),
        "commit": commit.removesuffix("+modified"),
        "dirty": str(bool(record.get("dirty")) or commit.endswith("+modified")).lower(),
        "run_date": str(record.get("recorded") or "unknown"),
    }
    missing = [k for k in ("device", "scale") if not facts[k]]
    if missing:
        raise ReferenceError(f"{provenance}: config has no {' or '.join(missing)}")
    return facts


def unfinished(claims_csv: Path) -> bool:
    markdown = Path(claims_csv).with_name("claims.md")
    return markdown.is_file() and UNFINISHED in markdown.read_text()


def write_reference(
    claims_csv: Path,
    provenance: Path | None = None,
    folder: Path | None = None,
    out: Path | None = None,
    allow_dirty: bool = False,
    allow_unfinished: bool = False,
    today: str | None = None,
) -> Path:
    claims_csv = Path(claims_csv)
    read_table(claims_csv)  # refuse a damaged table before anything is written
    facts = run_facts(claims_csv, provenance or claims_csv.with_name("provenance.json"))
    if facts["dirty"] == "true" and not allow_dirty:
        raise ReferenceError(
            f"{claims_csv}: the run's checkout had uncommitted changes (commit "
            f"{facts['commit']}+modified): its verdicts belong to no commit (--allow-dirty "
            "takes it anyway)"
        )
    if unfinished(claims_csv) and not allow_unfinished:
        raise ReferenceError(
            f"{claims_csv}: the run did not finish (claims.md says so): its missing "
            "tables would be 'not measured' in the reference (--allow-unfinished takes it)"
        )
    facts["written"] = today or datetime.date.today().isoformat()
    facts["source"] = display(claims_csv)
    target = Path(out) if out else reference_path(facts["device"], facts["scale"], folder)
    header = [
        "# mobifrag reference verdicts: a run's claims.csv, committed so that later runs",
        "# can be compared with it (python -m mobifrag.report.reference compare).",
        *(f"# {key}: {facts[key]}" for key in HEADER_KEYS),
    ]
    body = claims_csv.read_text().rstrip("\n").splitlines()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_text("\n".join(header + body) + "\n")
    partial.replace(target)
    return target


def job_times_path(reference_file: Path, meta: dict[str, str]) -> Path:
    """Where a reference's job times lie: beside its verdicts (`meta`: its header)."""
    return Path(reference_file).with_name(
        stages.REFERENCE_JOB_TIMES.format(device=meta["device"], scale=meta["scale"])
    )


def write_job_times(claims_csv: Path, reference_file: Path) -> Path | None:
    """The job-minutes per rule of the run whose claims.csv became `reference_file`, from
    its benchmark files (every platform's runs at its scale, its device's model stage);
    None where the run left none (a claims.csv copied out of its results tree)."""
    meta = read_table(reference_file).meta
    above = Path(claims_csv).resolve().parents  # results/<device>/<scale>/claims.csv
    if len(above) < 3:
        return None
    folders = job_times.stage_folders(above[2], meta["scale"], device=meta["device"])
    jobs = job_times.collect(folders)
    if not jobs:
        return None
    facts = {key: meta[key] for key in HEADER_KEYS if key in meta and key != "source"}
    return job_times.write_table(job_times_path(reference_file, meta), jobs, facts)


def display(path: Path) -> str:
    """A path relative to the repository where it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


# --- compare --------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    claim: str
    reference: str
    reference_value: str
    run: str
    run_value: str

    @property
    def kind(self) -> str:
        if self.reference == ABSENT:
            return "new"
        if self.run == ABSENT:
            return "missing"
        return "changed"


def differences(reference: Table, run: Table) -> list[Difference]:
    """Every claim whose verdict differs, a claim only one of the two has included."""
    found = []
    for claim in sorted(set(reference.rows) | set(run.rows)):
        if reference.verdict(claim) != run.verdict(claim):
            found.append(
                Difference(
                    claim,
                    reference.verdict(claim),
                    reference.value(claim),
                    run.verdict(claim),
                    run.value(claim),
                )
            )
    return found


def describe_reference(reference: Table) -> str:
    meta = reference.meta
    parts = [
        f"commit {meta['commit'][:12]}" if meta.get("commit") else "",
        f"run {meta['run_date'][:10]}" if meta.get("run_date") else "",
        f"{meta.get('device', '?')}/{meta.get('scale', '?')}",
    ]
    return ", ".join(p for p in parts if p)


def evidence_counts(table: Table) -> Counter:
    """Verdict → count over the evidence claims (a table without a kind column: all)."""
    return Counter(
        row["verdict"] for row in table.rows.values() if row.get("kind", "evidence") == "evidence"
    )


def counts_text(counts: Counter) -> str:
    ordered = [v for v in VERDICTS if counts[v]] + sorted(set(counts) - set(VERDICTS))
    listed = ", ".join(f"{counts[v]} {v}" for v in ordered)
    return f"{sum(counts.values())} evidence claims: {listed or 'none'}"


def report(reference: Table, run: Table, rows: list[Difference]) -> str:
    kinds = Counter(d.kind for d in rows)
    lines = [
        f"# Verdicts of {display(run.path)} against the reference {display(reference.path)}",
        "",
        f"Reference: {describe_reference(reference)}; {counts_text(evidence_counts(reference))}.",
        f"This run: {counts_text(evidence_counts(run))}.",
        "",
        f"{len(set(reference.rows) | set(run.rows))} claims; {kinds['changed']} verdicts "
        f"differ, {kinds['new']} claims are new, {kinds['missing']} are missing from this run.",
        "",
    ]
    if rows:
        lines += markdown_table(
            ("claim", "reference", "measured", "this run", "measured"),
            [(d.claim, d.reference, d.reference_value, d.run, d.run_value) for d in rows],
        )
    return "\n".join(lines) + "\n"


def default_reference(run_csv: Path, folder: Path | None = None) -> Path:
    """docs/reference/<device>-<scale>.csv for results/<device>/<scale>/claims.csv."""
    return reference_path(*stages.run_of(Path(run_csv).parent), folder)


def missing_reference(path: Path) -> ReferenceError:
    folder = path.parent
    known = sorted(p.name for p in folder.glob("*.csv")) if folder.is_dir() else []
    return ReferenceError(
        f"{path}: no reference verdicts for this device and scale (docs/reference/ has "
        f"{', '.join(known) or 'none'}; `python -m mobifrag.report.reference write` makes one)"
    )


def compare(run_csv: Path, reference: Path | None = None) -> tuple[Table, Table, list]:
    path = Path(reference) if reference else default_reference(run_csv)
    if not path.is_file():
        raise missing_reference(path)
    ref, run = read_table(path), read_table(run_csv)
    return ref, run, differences(ref, run)


DEFAULT_REFERENCE = f"{stages.REFERENCES}/{stages.as_prose(stages.REFERENCE)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="commit a run's claims.csv as the reference")
    write.add_argument("--from", dest="source", type=Path, required=True, help="claims.csv")
    write.add_argument("--provenance", type=Path, help="default: provenance.json beside it")
    write.add_argument("--out", type=Path, help=f"default: {DEFAULT_REFERENCE}")
    write.add_argument("--allow-dirty", action="store_true")
    write.add_argument("--allow-unfinished", action="store_true")
    comp = commands.add_parser("compare", help="a run's verdicts against the reference")
    comp.add_argument("run", type=Path, help="the run's claims.csv")
    comp.add_argument("--reference", type=Path, help=f"default: {DEFAULT_REFERENCE}")
    comp.add_argument("--markdown", type=Path, help="also write the comparison here")
    comp.add_argument("--strict", action="store_true", help="exit 1 when a verdict differs")
    args = parser.parse_args(argv)
    try:
        if args.command == "write":
            target = write_reference(
                args.source,
                args.provenance,
                out=args.out,
                allow_dirty=args.allow_dirty,
                allow_unfinished=args.allow_unfinished,
            )
            print(f"reference: wrote {display(target)}", file=sys.stderr)
            times = write_job_times(args.source, target)
            said = display(times) if times else "nothing (no benchmark files beside the run)"
            print(f"reference: job times: {said}", file=sys.stderr)
            return 0
        ref, run, rows = compare(args.run, args.reference)
    except (ReferenceError, StabilityError, job_times.BenchmarkError) as error:
        print(f"reference: {error}", file=sys.stderr)
        return 2
    text = report(ref, run, rows)
    print(text, end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text)
    return 1 if args.strict and rows else 0


if __name__ == "__main__":
    sys.exit(main())
