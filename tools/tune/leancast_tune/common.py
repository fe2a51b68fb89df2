"""What every part of leancast-tune shares: the reference's name, the timing methods, sizes
and durations as text, how records show paths, and where the other tools are found."""
import argparse
import os
import re
import shlex
import shutil
import tempfile


REFERENCE = "mpi"
SMPI_PREFIX = "smpi:"
METHODS = ("paper", "osu", "fresh", "sync")
# What each method times (leancast-bench --method): the rules' header says it.
METHOD_TEXT = {"paper": "back-to-back broadcasts", "osu": "a barrier before each",
               "fresh": "a barrier before each, the root's data rewritten before it",
               "sync": "every simulated rank starts at the same instant, one broadcast"}
SIMULATED_ONLY = ("sync",)  # needs SMPI's global clock
SUFFIXES = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_size(text):
    text = text.strip()
    factor = SUFFIXES.get(text[-1:].upper(), 1)
    digits = text[:-1] if factor > 1 else text
    if not digits.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 4096, 64K, 1M)")
    return int(digits) * factor


def size_text(value):
    for suffix, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= factor and value % factor == 0:
            return f"{value // factor}{suffix}"
    return str(value)


def duration_text(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


# leancast algorithms that re-implement the library's broadcast (--reference): what the
# library would run where the simulator has no faithful copy of it. They are measured as
# candidates that win ties, never as references: a re-implementation may not veto a lead
# over what the library (mpi, smpi:NAME) actually ran.
EMULATED_REFERENCES = set()
# leancast algorithms simulated in place of SMPI's copy of a library's broadcast (--stand-in
# LEANCAST=smpi:NAME), where that copy costs hours to simulate and a check shows the two take
# the same time (scripts/large-scale.sh ompi): references, vetoing as smpi:NAME would.
STAND_INS = {}


def is_reference(name):
    """The library's own broadcast: mpi, SMPI's copy of one (smpi:NAME), or its stand-in."""
    return name == REFERENCE or name.startswith(SMPI_PREFIX) or name in STAND_INS


def reference_text(name):
    """A reference as the rules show it: a stand-in with what it stands in for."""
    return f"{name} for {STAND_INS[name]}" if name in STAND_INS else name


# An absolute path in an argument: the whole text, or a part after '=', ':' or ',' (up to
# the next ':' or ','); not '//' (a URL's).
ABSOLUTE_PATH = re.compile(r"(?<![^=:,])/(?!/)[^:,]*")


def shown_path(path):
    """How a record shows one absolute path, so that a record names no machine's folders:
    inside the current directory (the repository's root, where the scripts run) relative to
    it; where it shares a folder with the current directory below the root and the
    temporary folder (the checkout seen from its build, a build beside it) relative to it
    with ..; else inside the temporary folder as $TMPDIR/...; anything else (/usr/...,
    /dev/shm/...) as it is. tools/bench/bench_support.hpp's shown_path() follows the same
    rules."""
    here = os.path.normpath(os.getcwd())
    norm = os.path.normpath(path)
    temporary = list(dict.fromkeys((os.path.normpath(tempfile.gettempdir()), "/tmp")))

    def under(p, folder):
        return folder != os.sep and (p == folder or p.startswith(folder + os.sep))

    shared = os.path.commonpath([norm, here])
    if under(norm, here) or (shared != os.sep and not any(under(t, shared) for t in temporary)):
        return os.path.relpath(norm, here)
    for tmp in temporary:
        if under(norm, tmp):
            return "$TMPDIR" + norm[len(tmp):]
    return path


def shown(text):
    """How a record shows an argument or a setting: each absolute path in it as shown_path
    shows it. leancast-sim's records too (it imports this)."""
    return ABSOLUTE_PATH.sub(lambda m: shown_path(m.group(0)), str(text))


TOOLS = {"leancast-bench", "leancast-sim", "leancast-plan", "leancast-tune"}


def shown_args(command):
    """A command line as a record shows it: its programs (leancast's tools by any path, and
    each word that is the absolute path of an executable file: the launcher, leancast-bench
    after it) by their names, the rest by shown(). Not by whether a relative path names a
    file here: rules derived again from evidence would then depend on what is built where
    they are derived (build/smpi/leancast-sim once stayed a path where SMPI was not built)."""
    def program(word):
        if os.sep in word and os.path.basename(word) in TOOLS:
            return True
        return os.path.isabs(word) and os.path.isfile(word) and os.access(word, os.X_OK)
    return [os.path.basename(w) if program(w) else shown(w) for w in map(str, command)]


def shown_command(command):
    return " ".join(shlex.quote(a) for a in shown_args(command))


# Where leancast-tune was started from (the leancast-tune script sets it): leancast-bench,
# leancast-plan and leancast-sim lie beside it in a build or an installation. By default the
# folder that holds this package, which is the script's.
TOOL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_tool(name, given):
    """A tool given on the command line, else beside the leancast-tune script, else on PATH."""
    if given:
        return given
    beside = os.path.join(TOOL_DIR, name)
    if os.path.exists(beside):
        return beside
    return shutil.which(name)
