"""The leancast candidates leancast-tune measures, derived from leancast's registry of
algorithms as `leancast-plan --json --list-algorithms` prints it (src/schedule/registry.cpp):
one row per algorithm, with its flags (flat, shared_memory, ...) and "tuned", the specs that
tuners measure of it. No algorithm is named here: a new row with tuned specs is measured
without an edit to this file."""
import json
import subprocess

NODE_AWARE_PREFIX = "node-aware:"


class RegistryError(Exception):
    """The registry could not be read: no leancast-plan, or not its JSON."""


def read_registry(plan):
    """The registry's rows, a list of dicts, from the leancast-plan at `plan`."""
    if not plan:
        raise RegistryError("no leancast-plan (--plan PATH) to read leancast's registry from")
    # --json first: it changes what --list-algorithms prints (the rows, not the names).
    command = [plan, "--json", "--list-algorithms"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RegistryError(f"{' '.join(command)}: {error}") from error
    if done.returncode != 0:
        raise RegistryError(f"{' '.join(command)} failed (exit {done.returncode}): "
                            f"{done.stderr.strip()}")
    try:
        rows = json.loads(done.stdout)
    except ValueError as error:
        raise RegistryError(f"{' '.join(command)} printed no JSON: {error}") from error
    check_rows(rows, " ".join(command))
    return rows


def check_rows(rows, source):
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str)
            and isinstance(r.get("tuned", []), list) for r in rows):
        raise RegistryError(f"{source}: not a list of registry rows with a name and a tuned list")


def levels(spec):
    """node-aware:BETWEEN/WITHIN -> (BETWEEN, WITHIN); None for any other spec."""
    if not spec.startswith(NODE_AWARE_PREFIX) or "/" not in spec:
        return None
    between, _, within = spec[len(NODE_AWARE_PREFIX):].partition("/")
    return between, within


class Candidates:
    """The lists the registry's rows come to, each in the registry's order:

    default          a simulation's or a --launcher run's: the tuned specs of every flat
                     algorithm that does not use shared memory (SMPI does not simulate
                     it), then the node-aware pairs whose within-node level does not;
    site_flat        --site on one node: every flat algorithm's tuned specs, shared memory
                     included (a real node measures it);
    site_node_aware  --site where the ranks may span nodes, besides site_flat: every
                     node-aware pair.

    Node-aware rows are the ones whose parameter is "levels"; a pair uses shared memory
    where its within-node level names a row marked shared_memory."""

    def __init__(self, rows):
        self.rows = {}
        for row in rows:
            for name in (row["name"], row.get("alias")):
                if name:
                    self.rows.setdefault(name, row)
        flat = [row for row in rows if row.get("flat")]
        pairs = [spec for row in rows if row.get("parameter") == "levels"
                 for spec in row.get("tuned", [])]
        self.site_flat = [spec for row in flat for spec in row.get("tuned", [])]
        self.site_node_aware = pairs
        self.default = ([spec for row in flat if not row.get("shared_memory")
                         for spec in row.get("tuned", [])]
                        + [spec for spec in pairs if not self.uses_shared_memory(spec)])

    def uses_shared_memory(self, spec):
        """Whether a spec (NAME[:PARAMETER][@EXECUTOR], or a node-aware pair by its
        within-node level) runs through shared memory, by the registry's rows."""
        pair = levels(spec)
        if pair:
            return self.uses_shared_memory(pair[1])
        row = self.rows.get(spec.split("@")[0].split(":")[0])
        return bool(row and row.get("shared_memory"))


def counts_text(plan):
    """How --help quotes the default lists: their lengths, where the registry can be read."""
    try:
        found = Candidates(read_registry(plan))
    except RegistryError:
        return "the registry's tuned specs, from leancast-plan --json --list-algorithms"
    return (f"the registry's {len(found.default)} tuned specs, --site: its "
            f"{len(found.site_flat)} flat ones")
