"""Running the function: contracts checked at run time (E-ACSL), and differential testing of variants.

Both compile with gcc and run in one tool invocation (`sh -c` compiling then running each input in a
CPU-limited subshell), so everything runs in the tool runner's private directory with its limits, and
the result is cached by content. Nothing here runs program code in the workbench process.

- `check_contract`: Frama-C's E-ACSL instruments the annotated function (`-e-acsl-functions`: only its
  annotations), a generated `main` calls it on input number argv[1], and each input runs as its own
  process, so one violation does not hide the next. A failed precondition means the input is outside
  the contract (skipped); a failed postcondition, loop invariant, variant or assertion is a concrete
  counterexample. E-ACSL skips what it cannot execute (axiomatic definitions, unbounded quantifiers);
  those parts are left to WP.
- `differential`: the original and its variants (mutants, transformed programs) in one C file, each
  renamed by macros, run on the same inputs in forked children (each stopped by a CPU-time limit, so
  the outcome does not depend on the machine's load); their printed results are compared.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Literal

from pydantic import BaseModel

from core.families.specs.csyntax import Signature, function_names
from core.families.specs.inputs import call_case
from core.families.specs.tools import FRAMAC, GCC_RUN
from core.tools import run
from core.tools.process import MAX_OUTPUT

RunStatus = Literal["ok", "pre", "violation", "crash", "timeout"]
CPU_PER_INPUT_S = 2
INSTRUMENT_LIMIT_S = 120  # E-ACSL's instrumentation (Frama-C)


def run_limit_s(inputs: int) -> int:
    """The wall-clock limit of one E-ACSL run: compiling, then every input (at most MAX_INPUTS of
    core.families.specs.inputs, so at most 252 s)."""
    return 60 + 3 * inputs


class RunOutcome(BaseModel):
    index: int
    status: RunStatus
    kind: str = ""  # "Postcondition", "Loop invariant", "Precondition", ...
    line: int | None = None
    message: str = ""


class ContractRun(BaseModel):
    ok: bool  # the check ran (instrumentation and compilation succeeded)
    error: str = ""
    outcomes: list[RunOutcome] = []
    unchecked: list[str] = []  # E-ACSL warnings about annotations it could not translate
    cached: bool = False

    def violations(self) -> list[RunOutcome]:
        return [o for o in self.outcomes if o.status in ("violation", "crash")]


@functools.cache
def eacsl_paths() -> tuple[str, str]:
    share = run(FRAMAC, ["-print-share-path"], timeout_s=60).stdout.strip() or "/usr/share/frama-c"
    lib = run(FRAMAC, ["-print-lib-path"], timeout_s=60).stdout.strip() or "/usr/lib/frama-c"
    return f"{share}/e-acsl", f"{lib}/e-acsl"


def _selector_main(sig: Signature, cases: list[dict[str, Any]], callee: str, *, output: bool) -> str:
    body = "\n".join(f"    case {i}: {{\n      {call_case(sig, case, callee, output=output)}\n    }} break;"
                     for i, case in enumerate(cases))
    return ("int main(int argc, char **argv) {\n  int which = 0;\n"
            "  if (argc > 1) for (char *p = argv[1]; *p; p++) which = which * 10 + (*p - '0');\n"
            f"  switch (which) {{\n{body}\n    default: break;\n  }}\n  return 0;\n}}\n")


def _with_harness(program: str, harness: str) -> str:
    # the program's own main (a test harness in imported files) is renamed out of the way; #line keeps
    # Frama-C's messages on the program's own line numbers
    return (f'#define main sembench_program_main\n#line 1 "program.c"\n{program}\n#undef main\n'
            f'#line 1 "harness.c"\n{harness}')


_EACSL_MSG = re.compile(r"^program\.c:(\d+): Error: (.+?) failed:", re.M)


def check_contract(annotated: str, function: str, sig: Signature, cases: list[dict[str, Any]]) -> ContractRun:
    """Run `function` with its contract checked at run time on every case."""
    if not cases:
        return ContractRun(ok=True)
    source = _with_harness(annotated, _selector_main(sig, cases, function, output=False))
    inst = run(FRAMAC, ["-e-acsl", "-e-acsl-functions", function, "input.c", "-then-last", "-print", "-ocode",
                        "instrumented.c"], files={"input.c": source}, collect=["instrumented.c"],
               timeout_s=INSTRUMENT_LIMIT_S, memory_mb=4096)
    code = inst.files.get("instrumented.c", "")
    unchecked = sorted({m.strip() for m in re.findall(r"Warning: (?:E-ACSL construct\s*)?(.*not yet supported.*)",
                                                       inst.stdout + inst.stderr)})[:10]
    if not code:
        tail = (inst.stdout + inst.stderr).strip().splitlines()[-3:]
        return ContractRun(ok=False, error="E-ACSL could not instrument the program: " + " | ".join(tail))
    share, lib = eacsl_paths()
    script = (
        f"gcc -std=c99 -O0 -w -fno-builtin -fno-merge-constants -I{share} -DE_ACSL_SEGMENT_MMODEL "
        f"-DE_ACSL_STACK_SIZE=16 -DE_ACSL_HEAP_SIZE=64 -DE_ACSL_FAIL_EXITCODE=86 -o prog instrumented.c "
        f"{share}/e_acsl_rtl.c {lib}/libeacsl-dlmalloc.a -lgmp -lm > compile.log 2>&1 "
        "|| { echo '@@compile-failed'; tail -n 20 compile.log; exit 0; }\n"
        f"i=0; while [ $i -lt {len(cases)} ]; do echo \"@@input $i\"; "
        f"(ulimit -t {CPU_PER_INPUT_S}; ./prog $i) 2>&1; echo \"@@rc $?\"; i=$((i+1)); done\n"
    )
    # memory_mb=None: the sandbox's default limit for a program (E-ACSL's shadow memory fits in it)
    result = run(GCC_RUN, ["-c", script], files={"instrumented.c": code}, timeout_s=run_limit_s(len(cases)),
                 memory_mb=None)
    out = result.stdout
    if "@@compile-failed" in out:
        return ContractRun(ok=False, error="the instrumented program did not compile: " + out[-600:],
                           unchecked=unchecked)
    outcomes = []
    for block in re.split(r"^@@input ", out, flags=re.M)[1:]:
        head, _, rest = block.partition("\n")
        index = int(head.strip())
        rc_match = re.search(r"^@@rc (\d+)", rest, re.M)
        rc = int(rc_match.group(1)) if rc_match else -1
        msg = _EACSL_MSG.search(rest)
        text = rest[:rc_match.start()].strip() if rc_match else rest.strip()
        if msg is not None:
            kind = msg.group(2)
            status: RunStatus = "pre" if kind.startswith("Precondition") else "violation"
            pred = re.search(r"The failing predicate is:\s*\n\s*(.+)", text)
            outcomes.append(RunOutcome(index=index, status=status, kind=kind, line=int(msg.group(1)),
                                       message=(pred.group(1).strip() if pred else text)[:300]))
        elif rc == 0:
            outcomes.append(RunOutcome(index=index, status="ok"))
        elif rc in (137, 152, 158):  # killed by the CPU limit
            outcomes.append(RunOutcome(index=index, status="timeout",
                                       message=f"killed: CPU limit ({CPU_PER_INPUT_S} s), no result"))
        elif rc == 153:  # SIGXFSZ
            outcomes.append(RunOutcome(index=index, status="crash", kind="RuntimeError",
                                       message="killed: file size limit of the sandbox"))
        elif not rc_match and (result.output_cut or result.timed_out):  # the input the run was stopped in
            why = (f"its output passed the runner's limit of {MAX_OUTPUT // (1024 * 1024)} MiB" if result.output_cut
                   else f"the run's time limit of {run_limit_s(len(cases))} s passed while it ran")
            outcomes.append(RunOutcome(index=index, status="crash", kind="RuntimeError",
                                       message=f"killed: {why} {text[:200]}".rstrip()))
        else:
            outcomes.append(RunOutcome(index=index, status="crash", kind="RuntimeError",
                                       message=f"the program stopped abnormally (exit status {rc}) {text[:200]}"))
    return ContractRun(ok=True, outcomes=outcomes, unchecked=unchecked, cached=result.cached)


# ---- differential testing ----------------------------------------------------------------------
_DIFF_PRELUDE = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
"""
# The driver runs each (program, case) in a forked child whose output comes back through a pipe. A child
# is stopped by a CPU-time limit (1 s, SIGXCPU; the wall-clock alarm is only a backstop for a program
# that sleeps): a wall-clock limit alone made the result depend on the machine's load (a case the
# original took more than a second of wall time on, on a busy machine, was dropped from the comparison,
# and a mutant found non-equivalent only on it was taken for equivalent). With FIRST_DIFFERENCE a
# variant stops at the first case on which it differs from program 0, which is all `live_mutants` asks.
_DIFF_DRIVER = r"""
static char sembench_base[%(cases)d][4096];
static int sembench_base_ok[%(cases)d];
static char sembench_out[4096];

static void sembench_trim(char *s) {
  char *nl = strchr(s, '\n');
  if (nl) *nl = 0;
  size_t n = strlen(s), k = 0;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
  while (s[k] == ' ' || s[k] == '\t') k++;
  if (k) memmove(s, s + k, n - k + 1);
}

static int sembench_run(int v, int i) {
  int fd[2];
  sembench_out[0] = 0;
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]); dup2(fd[1], 1); close(fd[1]);
    struct rlimit cpu = {1, 2};
    setrlimit(RLIMIT_CPU, &cpu);
    alarm(20);
    variants[v](i); printf("\n"); fflush(stdout); _exit(0);
  }
  close(fd[1]);
  size_t n = 0; ssize_t got; char rest[4096];
  while ((got = read(fd[0], n < sizeof sembench_out - 1 ? sembench_out + n : rest,
                     n < sizeof sembench_out - 1 ? sizeof sembench_out - 1 - n : sizeof rest)) > 0)
    if (n < sizeof sembench_out - 1) n += (size_t)got;
  sembench_out[n] = 0;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  sembench_trim(sembench_out);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static int sembench_report(int v, int i) {
  int sig = sembench_run(v, i);
  printf("@ %%d %%d %%s\n", v, i, sembench_out);
  if (sig) printf("@! %%d %%d signal %%d\n", v, i, sig);
  fflush(stdout);
  return sig;
}

int main(void) {
  for (int i = 0; i < %(cases)d; i++) {
    sembench_base_ok[i] = sembench_report(0, i) == 0;
    strcpy(sembench_base[i], sembench_out);
  }
  for (int v = 1; v < %(programs)d; v++) for (int i = 0; i < %(cases)d; i++) {
    int sig = sembench_report(v, i);
    if (%(first)d && sembench_base_ok[i] && (sig || strcmp(sembench_out, sembench_base[i]) != 0)) break;
  }
  return 0;
}
"""


def _renamed(program: str, prefix: str) -> str:
    names = set(function_names(program)) | {"main"}
    defines = "".join(f"#define {n} {prefix}{n}\n" for n in sorted(names))
    undefs = "".join(f"#undef {n}\n" for n in sorted(names))
    return f"{defines}{program}\n{undefs}"


def differential(programs: list[str], function: str, sig: Signature, cases: list[dict[str, Any]], *,
                 first_difference: bool = False) -> list[list[str]] | None:
    """Observable behaviour of each program on each case (return value, arrays written, crash, timeout),
    or None when the programs do not compile together. With `first_difference`, a program after the
    first is run only until its first case that differs from the first program's (where that one ran to
    its end): the cases after it are "missing"."""
    if not programs or not cases:
        return [[] for _ in programs]
    parts = [_DIFF_PRELUDE]
    for v, program in enumerate(programs):
        parts.append(_renamed(program, f"v{v}_"))
    for v in range(len(programs)):
        cases_text = "\n".join(f"    case {i}: {{\n      {call_case(sig, case, f'v{v}_{function}', output=True)}\n"
                               f"    }} break;" for i, case in enumerate(cases))
        parts.append(f"static void run_v{v}(int which) {{\n  switch (which) {{\n{cases_text}\n"
                     "    default: break;\n  }\n}\n")
    table = ", ".join(f"run_v{v}" for v in range(len(programs)))
    parts.append(f"static void (*variants[])(int) = {{{table}}};\n")
    parts.append(_DIFF_DRIVER % {"cases": len(cases), "programs": len(programs), "first": int(first_difference)})
    source = "\n".join(parts)
    # Without address-space randomisation: a mutant that reads past an array (`i <= n`) prints what lies
    # there, saved addresses among it, and with ASLR its output, hence whether it is live, changed from run
    # to run (a mutant live in one `verify` and equivalent in the next moved which mutants were sampled).
    script = ("gcc -std=gnu99 -O0 -w -fwrapv -o diff diff.c > compile.log 2>&1 "
              "|| { echo '@@compile-failed'; tail -n 20 compile.log; exit 0; }\n"
              'if setarch "$(uname -m)" -R true 2>/dev/null; then setarch "$(uname -m)" -R ./diff; else ./diff; fi\n')
    result = run(GCC_RUN, ["-c", script], files={"diff.c": source}, timeout_s=60 + 2 * len(programs) * len(cases),
                 memory_mb=2048)
    if "@@compile-failed" in result.stdout:
        return None
    table_out: list[list[str]] = [["missing"] * len(cases) for _ in programs]
    for line in result.stdout.splitlines():
        crash = re.match(r"^@! (\d+) (\d+) signal (-?\d+)", line)
        if crash:
            v, i = int(crash.group(1)), int(crash.group(2))
            if v < len(programs) and i < len(cases):
                table_out[v][i] = f"signal {crash.group(3)}"
            continue
        ok = re.match(r"^@ (\d+) (\d+) (.*)$", line)
        if ok:
            v, i = int(ok.group(1)), int(ok.group(2))
            if v < len(programs) and i < len(cases) and table_out[v][i] == "missing":
                table_out[v][i] = ok.group(3).strip()
    return table_out
