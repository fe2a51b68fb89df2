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
METHODS = ("paper", "osu", "sync")
# What each method times (leancast-bench --method): the rules' header says it.
METHOD_TEXT = {"paper": "back-to-back broadcasts", "osu": "a barrier before each",
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


def shown(text):
    """How a record shows an argument: paths inside the current directory (the repository's
    root, where the scripts run) relative to it, the temporary folder as $TMPDIR, so that a
    record means the same on every machine. leancast-sim's records too (it imports this)."""
    text = str(text).replace(os.getcwd() + os.sep, "")
    # Only the temporary folders a run makes (tempfile's tmp*, the tools' leancast-*), not a
    # checkout or build that happens to lie in the temporary folder.
    return re.sub(re.escape(tempfile.gettempdir() + os.sep) + "(?=tmp|leancast-)", "$TMPDIR/", text)


def shown_command(command):
    return " ".join(shlex.quote(shown(a)) for a in command)


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
