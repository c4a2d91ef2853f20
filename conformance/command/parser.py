"""The command line: ``agentd-conformance COMMAND ...``. Usage errors are :class:`UsageFailure` (exit 2)."""

from __future__ import annotations

import argparse
from typing import NoReturn

from conformance import __version__
from conformance.command.errors import UsageFailure
from conformance.registry import FAMILIES
from conformance.revision import NEWEST, REVISIONS
from conformance.targets.options import add_target_options


class CommandParser(argparse.ArgumentParser):
    """A parser whose errors are :class:`UsageFailure` (one line on stderr, exit 2), not argparse's usage text."""

    def error(self, message: str) -> NoReturn:
        raise UsageFailure(f"{self.prog}: {message}")


_Parser = CommandParser

#: The exit codes of ``spec-diff``, as its ``--help`` lists them (the README says the same).
SPEC_DIFF_EXIT = """exit codes:
  0  the registry matches the revision: no id added, removed, renamed, withdrawn, moved,
     re-sectioned, reworded or changed in level, and the same revision date (or none given)
  1  the revision differs from the registry (the report lists each difference and what to re-verify)
  2  usage error: a file that cannot be read or parsed (one line naming the file and line), a bad flag
  3  the harness itself failed (its registry data unreadable, an internal error), in one line"""


def build_parser() -> argparse.ArgumentParser:
    """The command's parser: one sub-command per job (``matrix merge`` has its own: :func:`merge_parser`)."""
    p = _Parser(prog="agentd-conformance", description="Black-box conformance harness for A2A agents and a2a-cli "
                "command-line clients. Writes per-requirement verdicts with evidence.")
    p.add_argument("--version", action="version", version=f"agentd-conformance {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("registry", help="list the requirement registry")
    r.add_argument("--family", choices=FAMILIES, help="only this family")
    r.add_argument("--tier", type=int, choices=(1, 2, 3), help="only this tier and below")
    r.add_argument("--format", choices=("text", "json", "yaml", "markdown"), default=None,
                   help="text (default), json, yaml; with --coverage: markdown (default) or json")
    r.add_argument("--coverage", action="store_true",
                   help="per requirement: the checks that measure it, the defects that kill it, its needs; "
                        "with the a2a family, per id of the official A2A TCK: the rows covering it, or why none does")
    r.add_argument("--spec-revision", metavar="REV", default=None,
                   help=f"the rows as that revision of the A2A text reads them ({', '.join(REVISIONS)}; "
                        f"default {NEWEST})")
    r.add_argument("--changed", action="store_true",
                   help="(with --spec-revision) only the rows that read otherwise than in the newest revision")

    t = sub.add_parser("template", help="print the blank compliance-report YAML")
    t.add_argument("--family", choices=FAMILIES, default="a2acli")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--only", nargs="+", metavar="ID", help="run only the checks of these requirement ids")
        sp.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="parallel test processes (default: automatic, 2 for the cli and agentd families, and "
                             "for the a2a family one per binding the agent's card declares when it declares two or "
                             "more, when the run selects at least 16 rows and the machine's load is below its CPUs, "
                             "else 1; never more than the rows selected; the report's run.jobs says why)")
        sp.add_argument("--report-dir", metavar="DIR",
                        help="where to write the report (default reports/<target>/<timestamp>)")
        sp.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="stop the whole run after S seconds (default: no limit)")
        sp.add_argument("--allure-dir", metavar="DIR", help="also write allure results into DIR")
        sp.add_argument("--baseline", metavar="FILE",
                        help="expected results (YAML: id -> {status, reason}); exit 1 on a regression or a stale entry")
        sp.add_argument("--write-baseline", metavar="FILE", help="write this run's results as a baseline file")
        sp.add_argument("--rerun-failed", nargs="?", const="last", metavar="REPORT",
                        help="rerun only the rows not pass/na in REPORT (default: this target's latest report) "
                             "and write a merged report")

    c = sub.add_parser("cli", help="check an a2a-cli client (default: the bundled reference CLI)")
    add_target_options(c, "cli")
    c.add_argument("--tier", type=int, choices=(1, 2, 3), default=3, help="run checks up to this tier (default 3)")
    c.add_argument("--require-tier", type=int, choices=(1, 2, 3), metavar="N",
                   help="exit 1 unless tier N is satisfied")
    c.add_argument("--name", metavar="NAME", help="target name for the report folder")
    common(c)

    a = sub.add_parser("agent", help="check a running A2A agent (default: launch the reference agentd)")
    add_target_options(a, "agent")
    a.add_argument("--family", choices=("agentd", "a2a"), default="agentd")
    a.add_argument("--require-level", choices=("must", "should"), metavar="LEVEL",
                   help="exit 1 unless every requirement of this level is satisfied")
    a.add_argument("--name", metavar="NAME", help="target name for the report folder")
    common(a)

    m = sub.add_parser("matrix", help="run many (suite, target) pairs and write a requirement × target table "
                       "(`matrix merge DIR...` combines shards)")
    m.add_argument("--targets", required=True, metavar="FILE",
                   help="targets YAML (see conformance/campaign/targets_file.py)")
    m.add_argument("--previous", metavar="PATH", help="an earlier matrix.yaml (or its folder), to flag regressions")
    m.add_argument("--shard", metavar="I/N", help="run only shard I of N (targets at positions I-1 mod N)")
    m.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a regression is flagged")
    m.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="parallel test processes per target (default: automatic, as `cli`/`agent` choose)")
    m.add_argument("--report-dir", metavar="DIR", help="default reports/matrix/<timestamp>")
    m.add_argument("--timeout", type=float, default=None, metavar="S", help="per-target time limit")

    sd = sub.add_parser("spec-diff", help="compare a revision's COMPLIANCE.md or report template with the registry",
                        epilog=SPEC_DIFF_EXIT, formatter_class=argparse.RawDescriptionHelpFormatter)
    sd.add_argument("path", metavar="PATH", help="a COMPLIANCE.md or compliance-report.template.yaml of a revision")
    sd.add_argument("--against", metavar="PATH",
                    help="the revision the registry was transcribed from (same forms), for word diffs of rewordings")
    sd.add_argument("--format", choices=("markdown", "json"), default="markdown")

    ad = sub.add_parser("adapter", help="work on adapter files (`adapter check FILE --exe TOOL`)")
    adsub = ad.add_subparsers(dest="adapter_command", metavar="ACTION", parser_class=_Parser)
    ac = adsub.add_parser("check", help="validate an adapter, run each translated command shape against a scripted "
                                        "agent, show translations")
    ac.add_argument("path", metavar="FILE", help="the adapter YAML")
    ac.add_argument("--exe", metavar="CMD", help="the tool as a command line; without it the help is not consulted")
    ac.add_argument("--strict", action="store_true", help="exit 1 when there is a warning")
    ac.add_argument("--cli-timeout", type=float, default=20.0, metavar="S",
                    help="bound on each run of the tool (default 20, as in a run)")

    rp = sub.add_parser("report", help="work on saved reports")
    im = sub.add_parser("image", help="container images of the bundled targets, built locally")
    isub = im.add_subparsers(dest="image_command", metavar="ACTION", parser_class=_Parser)
    ib = isub.add_parser("build-reference", help="build (or find, by content hash) the reference agentd image")
    ib.add_argument("--tag", metavar="T", help="also tag the image T")
    ib.add_argument("--mirror", metavar="URL", help="Debian mirror for debootstrap (default deb.debian.org)")

    rsub = rp.add_subparsers(dest="report_command", metavar="ACTION", parser_class=_Parser)
    rr = rsub.add_parser("render", help="rebuild summary.md and COMPLIANCE.md from a saved compliance-report.yaml")
    rr.add_argument("path", metavar="REPORT", help="a compliance-report.yaml (or the folder holding it)")
    rr.add_argument("--out", metavar="DIR", help="write beside the report unless given")
    rv = rsub.add_parser("verify", help="check a report folder against its manifest, and re-derive its verdicts, "
                         "rollup and claim from its outcomes (exit 0 holds, 1 does not, 2 not a report)")
    rv.add_argument("path", metavar="DIR", help="a report folder")

    s = sub.add_parser("serve-agent", help="run the scripted A2A agent standalone (prints its URL)",
                       add_help=False)
    s.add_argument("rest", nargs=argparse.REMAINDER)
    return p


def merge_parser() -> argparse.ArgumentParser:
    """``matrix merge DIR...``, parsed apart: its positional folders would clash with ``matrix``'s options."""
    p = _Parser(prog="agentd-conformance matrix merge",
                description="Combine the folders of `matrix --shard I/N` runs into one requirement × target table.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="the shards' report folders (each holds matrix.yaml)")
    p.add_argument("--previous", metavar="PATH", help="an earlier merged matrix (folder or matrix.yaml)")
    p.add_argument("--report-dir", metavar="DIR", help="default reports/matrix/<timestamp>")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a regression is flagged")
    return p
