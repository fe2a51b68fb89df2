"""Online tuning (LEANCAST_TUNE=online) picks the winner offline leancast-tune picks, at the
same points, under SMPI (issue 14, point 4). The simulation is deterministic, so both see
the same times wherever they time the same thing:

- with a barrier before every broadcast (online_winner --barrier) the tuner's trial of a
  candidate is exactly leancast-bench's osu method: warm-up 1, then 8 broadcasts, each
  timed on every rank from the barrier; the tuner takes each rank's median and the slowest
  rank, osu the slowest rank per call and the mean, which in a simulation without noise
  are the same (in practice to the printed digit);
- back to back (no barrier) it is the paper method's run of 8 calls, up to how the
  pipeline fills: paper divides the 8 calls' total (the first call's fill included) by 8,
  the tuner takes the median call. The points below are ones where that does not matter.

Per point the offline winner must be clear: every comparison that decides it, a leancast
candidate's lead over mpi against the 5 % it needs (kTuneMargin, which leancast-tune applies
through --tie 0.05) and the winner's lead over the other candidates, is decided by more than
CLEAR (2 % where both time the same thing, osu; 5 % for paper). The points' winners include
mpi and several leancast algorithms, mpi where a candidate leads it by less than the margin
(circulant by 2.7 %) and a candidate that leads it by a little more (binomial by 9 % at P = 48,
8 KiB),
so an online tuner that always kept mpi, ignored or misjudged its margin, took the fastest
rank instead of the slowest, or the wrong end of the ranking fails here. Each candidate list
is written as leancast's to_string writes it (pipeline-chain:64K, not pipeline-chain) so
that the names compare.

Usage: online_tuning_test.py LEANCAST_SIM LEANCAST_TUNE ONLINE_WINNER
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from rule_ranges import covers  # noqa: E402

SIM, TUNE, ONLINE = sys.argv[1:4]
del sys.argv[1:]

WARMUP, TRIALS = 1, 8  # LEANCAST_TUNE_WARMUP, LEANCAST_TUNE_TRIALS; leancast-bench's --iterations
MARGIN = 0.05          # kTuneMargin (src/select/online_tuner.hpp), leancast-tune --tie
# How much more every comparison at a point must be decided by: osu times the same calls
# online and offline, paper only nearly (see above).
CLEAR = {"osu": 0.02, "paper": 0.05}

# (P, ranks per node, method, candidates (mpi added), sizes). hornet: 24-core nodes.
GROUPS = [
    (16, 1, "osu", "knomial:8,scatter-ring-tuned,circulant", [1024, 32768, 262144, 4194304]),
    (16, 1, "osu", "circulant", [4096]),  # a lead over mpi inside the margin
    (48, 24, "osu", "binomial,scatter-ring-tuned,two-tree:16K", [8192, 262144, 1048576]),
    (16, 1, "paper", "knomial:8,scatter-ring-tuned,circulant", [32768, 1048576]),
]

RULE = re.compile(r"^procs=\S+ ppn=\S+ (?:library=\S+ )?(?P<bytes>\S+)\s+: (?P<algorithm>\S+)")
VERBOSE = re.compile(r"online tuning P=(?P<procs>\d+) ppn=(?P<ppn>\d+) bytes (?P<low>\d+)-(?P<high>\d+): "
                     r"(?P<times>.*) -> (?P<winner>\S+) \(")
ONLINE_ENV = {"LEANCAST_TUNE": "online", "LEANCAST_TUNE_WARMUP": str(WARMUP),
              "LEANCAST_TUNE_TRIALS": str(TRIALS), "LEANCAST_VERBOSE": "1"}
# Both runs start from leancast's defaults: no setting of the caller's (a rules file, an
# executor, LEANCAST_RANKS_PER_NODE over leancast-sim's placement) takes part.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("LEANCAST_")}


def class_low(size):
    """The first byte count of online tuning's size class of `size`: [2^k, 2^(k+1))."""
    return 1 << (size.bit_length() - 1)


def run(command, env=None, timeout=240):
    started = time.monotonic()
    done = subprocess.run(["timeout", str(timeout)] + command, env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}: {' '.join(command)}\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done, time.monotonic() - started


def offline(procs, ppn, method, candidates, sizes, tmp):
    """{bytes: winner} from leancast-tune's rules, {bytes: {algorithm: seconds}} from its JSON."""
    rules, data = os.path.join(tmp, "offline.rules"), os.path.join(tmp, "offline.json")
    command = [TUNE, "--sim", "hornet", "--procs", str(procs), "--ranks-per-node", str(ppn),
               "--candidates", candidates, "--sizes", ",".join(map(str, sizes)),
               "--methods", method, "--iterations", str(TRIALS), "--tie", str(MARGIN),
               "--out", rules, "--json", data]
    _, seconds = run(command, CLEAN_ENV)
    with open(rules) as f:
        found = [RULE.match(line) for line in f if line.strip() and not line.startswith("#")]
    winners = {size: next(m.group("algorithm") for m in found if m and covers(m.group("bytes"), size))
               for size in sizes}
    with open(data) as f:
        measured = json.load(f)
    times = {}
    for bench in measured["runs"]:
        for cell in bench["results"]:
            times.setdefault(cell["bytes"], {})[cell["algorithm"]] = \
                cell["summary"]["seconds_per_bcast"]["median"]
    return winners, times, command, seconds


def online(procs, ppn, method, candidates, sizes):
    """{bytes: winner} as every rank's tuned_algorithm() says, {bytes: {algorithm: seconds}}
    from the verbose line, and the command."""
    calls = (len(candidates.split(",")) + 1) * (WARMUP + TRIALS)
    env = dict(CLEAN_ENV, **ONLINE_ENV, LEANCAST_TUNE_CANDIDATES=candidates)
    command = [SIM, "--platform", "hornet", "--procs", str(procs), "--ranks-per-node", str(ppn),
               "--run", ONLINE, "--calls", str(calls)]
    command += ["--barrier"] if method == "osu" else []
    command += [str(s) for s in sizes]
    done, seconds = run(command, env)
    output = done.stdout + done.stderr
    if "DISAGREE" in output or "WRONG" in output:
        raise AssertionError(f"ranks disagree or data wrong:\n{output[-3000:]}")
    winners, times = {}, {}
    for line in done.stdout.splitlines():
        fields = line.split()
        if fields[:1] == ["online"]:
            size, winner, settled = int(fields[1]), fields[2], int(fields[4])
            if settled != calls:
                raise AssertionError(f"{size} B: settled after {settled} calls, not {calls}")
            winners[size] = winner
    for match in VERBOSE.finditer(output):
        entries = {}
        for entry in match.group("times").split(", "):
            name, value = entry.split()[:2]
            entries[name] = float(value) * 1e-6
        times[int(match.group("low"))] = (entries, match.group("winner"))
    env_text = " ".join(f"{k}={v}" for k, v in ONLINE_ENV.items() if k != "LEANCAST_VERBOSE")
    return winners, times, f"{env_text} LEANCAST_TUNE_CANDIDATES={candidates} " + " ".join(command), seconds


def clear_margin(times, winner):
    """How far the closest comparison at a point is from changing the decision (a fraction;
    > CLEAR[method] for a clear point): a leancast winner's lead over mpi beyond the margin,
    and over the other candidates; for mpi, every candidate's deficit to beating mpi by the
    margin."""
    if winner == "mpi":
        return min(t * (1 + MARGIN) / times["mpi"] - 1 for a, t in times.items() if a != "mpi")
    closest = times["mpi"] / (times[winner] * (1 + MARGIN)) - 1
    others = [t / times[winner] - 1 for a, t in times.items() if a not in ("mpi", winner)]
    return min([closest] + others)


class OnlineAgreesWithOffline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # (P, ppn, method, bytes, offline winner, online winner, offline times,
        #  (online times, the verbose line's winner), the candidates with mpi)
        cls.points = []
        cls.commands = []
        with tempfile.TemporaryDirectory(prefix="online-tuning-test-") as tmp:
            for procs, ppn, method, candidates, sizes in GROUPS:
                off_winners, off_times, off_command, off_s = offline(procs, ppn, method, candidates,
                                                                     sizes, tmp)
                on_winners, on_times, on_command, on_s = online(procs, ppn, method, candidates, sizes)
                cls.commands += [(off_s, " ".join(off_command)), (on_s, on_command)]
                for size in sizes:
                    expected = ["mpi"] + candidates.split(",")
                    cls.points.append((procs, ppn, method, size, off_winners[size],
                                       on_winners.get(size), off_times[size],
                                       on_times.get(class_low(size), ({}, None)), expected))
        for seconds, command in cls.commands:
            print(f"# {seconds:.1f} s: {command}")
        print(f"{'P':>3} {'ppn':>3} {'method':<6} {'bytes':>8}  {'offline':<20} {'online':<20} "
              "times offline | online (us)")
        for procs, ppn, method, size, off, on, off_t, (on_t, _), _ in cls.points:
            both = ", ".join(f"{a} {off_t[a] * 1e6:.3g}|{on_t.get(a, float('nan')) * 1e6:.3g}"
                             for a in off_t)
            print(f"{procs:>3} {ppn:>3} {method:<6} {size:>8}  {off:<20} {str(on):<20} {both}")

    def test_same_winner_at_every_point(self):
        for procs, ppn, method, size, off, on, *_ in self.points:
            with self.subTest(procs=procs, ppn=ppn, method=method, bytes=size):
                self.assertEqual(on, off, f"P={procs} ppn={ppn} {method} {size} B: online "
                                          f"tuning chose {on}, leancast-tune {off}")

    def test_the_online_trials_tried_the_same_candidates(self):
        for procs, ppn, method, size, _, on, off_t, (on_t, verbose_winner), expected in self.points:
            with self.subTest(procs=procs, ppn=ppn, method=method, bytes=size):
                self.assertEqual(list(on_t), expected)
                self.assertEqual(sorted(off_t), sorted(expected))
                self.assertEqual(verbose_winner, on)  # the verbose line names what ranks run

    def test_every_point_is_clear_offline(self):
        for procs, ppn, method, size, off, _, off_t, *_ in self.points:
            with self.subTest(procs=procs, ppn=ppn, method=method, bytes=size):
                self.assertGreater(clear_margin(off_t, off), CLEAR[method],
                                   f"P={procs} ppn={ppn} {method} {size} B is no longer a clear "
                                   f"point for {off} ({off_t}); pick another")

    def test_the_points_can_tell_tuners_apart(self):
        winners = [p[4] for p in self.points]
        self.assertIn("mpi", winners)
        self.assertGreaterEqual(len(set(winners) - {"mpi"}), 3, winners)


if __name__ == "__main__":
    unittest.main(verbosity=2)
