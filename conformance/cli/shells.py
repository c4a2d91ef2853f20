"""Real shells loading a completion script and completing command lines with it (A2ACLI_CLI_002).

Each function takes the script a tool printed and a list of *probes* — command-line prefixes after
the program name, e.g. ``"task "`` — and returns what the shell offers for each probe, or raises
:class:`ShellProblem` with what the shell said. Every shell runs without the user's configuration,
in a private directory, bounded by a timeout.

* bash: the script is sourced, ``complete -p`` names the program and the function it registered, and
  that function is called with ``COMP_WORDS``/``COMP_CWORD``/``COMP_LINE`` set as readline would;
  ``COMPREPLY`` is what bash would offer;
* zsh: an interactive ``zsh -f`` in a pseudo-terminal (pexpect) runs ``compinit``, sources the script,
  and a TAB is typed after each probe; the candidates are read from the listing zle prints;
* fish: the script is sourced and ``complete -C`` (fish's own "what would TAB offer") is asked.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import cast

SHELL_TIMEOUT = 10.0
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|[\x07\r]")


class ShellProblem(Exception):
    """The shell rejected or could not use the script; the message says what it printed."""


def offered_words(candidates: list[str]) -> set[str]:
    """What a shell's candidates offer: each word, and for an option offered with its ``=`` (zsh's
    ``_arguments`` completes an option taking a value as ``--agent-card=``; bash scripts with
    ``nospace`` do the same) the option itself."""
    out = set(candidates)
    out |= {w[:-1] for w in candidates if w.startswith("-") and w.endswith("=") and len(w) > 2}
    return out


def available(shell: str) -> str | None:
    return shutil.which(shell)


def syntax_check(shell: str, script: str) -> None:
    """``<shell> -n`` on the script; raises ShellProblem with the shell's complaint."""
    with tempfile.TemporaryDirectory(prefix="a2acli-shell-") as d:
        path = Path(d) / f"completion.{shell}"
        path.write_text(script, encoding="utf-8")
        args = [shell, "--no-config", "-n", str(path)] if shell == "fish" else [shell, "-n", str(path)]
        p = _run(args, d)
        if p.returncode != 0:
            raise ShellProblem(f"`{shell} -n` rejects the script (exit {p.returncode}): {p.stderr.strip()[:300]}")


def _env(home: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb",
            "XDG_CONFIG_HOME": f"{home}/.config", "XDG_DATA_HOME": f"{home}/.local/share"}


def _run(args: list[str], home: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=home, env=_env(home),
                              timeout=SHELL_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ShellProblem(f"{args[0]} did not finish within {SHELL_TIMEOUT:g}s") from None


_MARK = "::a2acli-probe::"


def bash_complete(script: str, probes: list[str]) -> tuple[str, dict[str, list[str]]]:
    """(program name, candidates per probe) from the ``complete -F`` function the script registers."""
    with tempfile.TemporaryDirectory(prefix="a2acli-shell-") as d:
        path = Path(d) / "completion.bash"
        path.write_text(script, encoding="utf-8")
        p = _run(["bash", "--norc", "--noprofile", "-c", 'source "$1" || exit 97; complete -p', "_", str(path)], d)
        if p.returncode != 0:
            raise ShellProblem(f"bash could not source the script (exit {p.returncode}): {p.stderr.strip()[:300]}")
        regs = [shlex.split(ln) for ln in p.stdout.splitlines() if ln.startswith("complete ")]
        with_fn = [(r[r.index("-F") + 1], r[-1]) for r in regs if "-F" in r]
        if not with_fn:
            raise ShellProblem(f"the script registers no completion function (`complete -p`: "
                               f"{p.stdout.strip()[:200]!r})")
        fn, prog = with_fn[0]
        body = ['source "$1" >/dev/null 2>&1']
        for probe in probes:
            line = f"{prog} {probe}"
            words = line.split()
            if line.endswith(" "):
                words.append("")
            body.append(
                f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
                f"COMP_LINE={shlex.quote(line)}; COMP_POINT={len(line)}; COMP_TYPE=9; COMP_KEY=9; COMPREPLY=(); "
                f"{fn} {shlex.quote(prog)} {shlex.quote(words[-1])} {shlex.quote(words[-2])} >/dev/null 2>&1; "
                f"echo {_MARK}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        p = _run(["bash", "--norc", "--noprofile", "-c", "\n".join(body), "_", str(path)], d)
        chunks = p.stdout.split(_MARK + "\n")[1:]
        if len(chunks) != len(probes):
            raise ShellProblem(f"bash stopped while completing (exit {p.returncode}): {p.stderr.strip()[:300]}")
        return prog, {pr: [w.strip() for w in c.splitlines() if w.strip()]
                      for pr, c in zip(probes, chunks, strict=True)}


def fish_complete(script: str, probes: list[str]) -> tuple[str, dict[str, list[str]]]:
    """(program name, candidates per probe) from ``complete -C`` after sourcing the script."""
    with tempfile.TemporaryDirectory(prefix="a2acli-shell-") as d:
        path = Path(d) / "completion.fish"
        path.write_text(script, encoding="utf-8")
        p = _run(["fish", "--no-config", "-c", "source $argv[1]; or exit 97; complete", str(path)], d)
        if p.returncode != 0:
            raise ShellProblem(f"fish could not source the script (exit {p.returncode}): {p.stderr.strip()[:300]}")
        names: Counter[str] = Counter()
        for ln in p.stdout.splitlines():
            m = re.match(r"complete(?:\s+--?[\w-]+)*?\s+(?:(?:-c|--command)\s+)?([^\s-]\S*)", ln)
            if m:
                names[m.group(1).strip("'\"")] += 1
        if not names:
            raise ShellProblem(f"the script registers no fish completion (`complete`: {p.stdout.strip()[:200]!r})")
        prog = names.most_common(1)[0][0]
        cmds = ["source $argv[1] 2>/dev/null"]
        for probe in probes:
            cmds.append(f"echo '{_MARK}'; complete -C {shlex.quote(f'{prog} {probe}')}")
        p = _run(["fish", "--no-config", "-c", "; ".join(cmds), str(path)], d)
        chunks = p.stdout.split(_MARK + "\n")[1:]
        if len(chunks) != len(probes):
            raise ShellProblem(f"fish stopped while completing (exit {p.returncode}): {p.stderr.strip()[:300]}")
        return prog, {pr: [w.split("\t")[0].strip() for w in c.splitlines() if w.strip()]
                      for pr, c in zip(probes, chunks, strict=True)}


def zsh_complete(script: str, probes: list[str]) -> tuple[str, dict[str, list[str]]]:
    """(program name, candidates per probe): TAB typed in an interactive zsh after each probe."""
    import pexpect

    with tempfile.TemporaryDirectory(prefix="a2acli-shell-") as d:
        path = Path(d) / "completion.zsh"
        path.write_text(script, encoding="utf-8")
        c = pexpect.spawn("zsh", ["-f", "-i"], env=_env(d), cwd=d, encoding="utf-8", timeout=SHELL_TIMEOUT,
                          dimensions=(60, 250))
        try:
            prompt = "ZP%% "
            c.sendline(f"PS1='{prompt}'; unsetopt beep; autoload -Uz compinit; compinit -u -D; "
                       "typeset -a _b; _b=(${(k)_comps}); "
                       f"source {shlex.quote(str(path))}; print -r -- NE''W:${{(j:,:)${{(k)_comps}}:|_b}}:END")
            c.expect(r"NEW:([^\r\n]*):END")
            new = [n for n in cast("re.Match[str]", c.match).group(1).split(",") if n]  # the pattern matched
            c.expect_exact("ZP% ")
            if not new:
                raise ShellProblem("after compinit and sourcing the script, zsh has no completion registered for "
                                   "a new command")
            prog = new[0]
            out: dict[str, list[str]] = {}
            for probe in probes:
                # TAB completes (zle prints a listing, or inserts the one match); ^U then clears the line
                # and a marker command runs, so the listing is complete once the marker is printed.
                c.send(f"{prog} {probe}\t\x15print -r -- PRO''BE-DONE\r")
                c.expect_exact("PROBE-DONE")
                seen = _ANSI.sub("", cast(str, c.before))  # set by the expect that succeeded
                c.expect_exact("ZP% ")
                typed = f"{prog} {probe}"
                idx = seen.find(typed)
                after = seen[idx + len(typed):] if idx >= 0 else seen
                seg = after.split("ZP% ")[0].split("print -r --")[0]
                inline, _, listing = seg.partition("\n")
                if listing.strip():  # several matches: zle listed them below the line
                    out[probe] = listing.split()
                else:  # one match: zle inserted the rest of it
                    suffix = inline.strip()
                    out[probe] = [probe.split(" ")[-1] + suffix] if suffix else []
            return prog, out
        except (pexpect.TIMEOUT, pexpect.EOF) as exc:
            raise ShellProblem(f"zsh did not respond while completing ({type(exc).__name__})") from None
        finally:
            c.close(force=True)
