"""A cfrlab agent against the real ACPC dealer and its ``example_player``, in both seats.

Usage: python benchmarks/acpc_dealer.py --acpc DIR --agent SPEC [--game FILE_OR_NAME]
       [--hands N] [--seed S] [--logs DIR] [--json]

``DIR`` (or the environment variable ``CFRLAB_ACPC_DIR``) holds the ACPC server's built
``dealer`` and ``example_player`` (``make dealer example_player`` in the ACPC server's
source). The ACPC code is not part of cfrlab.

Two matches of N hands each: the dealer is started on free ports (``dealer`` prints them),
``cfrlab connect GAME 127.0.0.1 PORT --agent SPEC`` takes seat 1 and ``example_player`` seat
2, then the seats are swapped. ``SPEC`` is passed to ``cfrlab connect`` unchanged (a bot
name, a strategy file such as ``out/hunl-fcpa.npz``, ``py:FILE.py:Class``, ...), from the
current directory. ``--game`` is a .game file (a bare file name is also looked for in DIR)
or a built-in game name (written to a .game file for the dealer); the default is DIR's
``holdem.nolimit.2p.reverse_blinds.game``.

Reported per match: hands the dealer logged, hands the cfrlab client finished, protocol
errors, the SCORE line's chips for the agent (and mbb/g), wall time. A protocol error is any
``ERROR`` or ``WARNING`` line the dealer writes (invalid or badly formatted action, a raise
it had to resize, a timeout, a seat that could not connect), a ``WARNING`` from the cfrlab
client (a line it could not read, an agent action replaced by call) or a client exit that is
not 0. With --json the last line is one JSON object. Exit status 1 when any error was seen.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.units import format_unit, to_unit, unit_of

ACPC_GAME = "holdem.nolimit.2p.reverse_blinds.game"
BINARIES = ("dealer", "example_player")
AGENT_NAME, PEER_NAME = "cfrlab", "example_player"
_SCORE = re.compile(r"^SCORE:([^:]+):(.+)$")
_CLIENT_SUMMARY = re.compile(r": (\d+) hands, ([-+]?[\d.]+) chips ")


def acpc_dir(given: str | None) -> Path:
    """The directory of the built ACPC binaries; CfrlabError (one line) when one is missing."""
    text = given or os.environ.get("CFRLAB_ACPC_DIR")
    if not text:
        raise CfrlabError("no ACPC directory: give --acpc DIR or set CFRLAB_ACPC_DIR "
                          "(DIR holds the built dealer and example_player)")
    d = Path(text).expanduser()
    missing = [b for b in BINARIES if not (d / b).is_file() or not os.access(d / b, os.X_OK)]
    if missing:
        raise CfrlabError(f"{' and '.join(missing)} not found (or not executable) in {d}: "
                          "build them with 'make dealer example_player' in the ACPC server's source")
    return d


def game_file(spec: str | None, acpc: Path, work: Path) -> tuple[Path, GameDef]:
    """The .game file the dealer and both players read, and cfrlab's parse of it."""
    if spec is None:
        spec = ACPC_GAME
    for cand in (Path(spec), acpc / spec):
        if cand.is_file():
            return cand.resolve(), parse_game(cand.read_text(), name=cand.stem)
    g = load_game(spec)  # a built-in name (or a clear error)
    path = work / f"{g.name or 'game'}.game"
    path.write_text(g.to_text())
    return path, g


def _start(cmd: list[str], out: Path, cwd: str | None = None) -> subprocess.Popen:
    with open(out, "w") as fh:  # the child keeps its own descriptor
        return subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def _wait(procs: list[subprocess.Popen], timeout: float) -> bool:
    """Wait for every process; False at the deadline or as soon as a player fails (the dealer
    would otherwise wait for its connection until the start timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        codes = [p.poll() for p in procs]
        if all(c is not None for c in codes):
            return True
        if any(c not in (None, 0) for c in codes[1:]):
            return False
        time.sleep(0.05)
    return False


def play_match(acpc: Path, game: Path, agent: str, hands: int, seed: int, agent_seat: int, logs: Path,
               timeout: float, start_timeout: float) -> dict:
    """One dealer match with the agent in ``agent_seat`` (1 or 2); the parsed outcome."""
    tag = f"seat{agent_seat}"
    names = [AGENT_NAME, PEER_NAME] if agent_seat == 1 else [PEER_NAME, AGENT_NAME]
    dealer_err = logs / f"{tag}.dealer.stderr"
    t0 = time.perf_counter()
    with open(dealer_err, "w") as err:
        dealer = subprocess.Popen(
            [str(acpc / "dealer"), tag, str(game), str(hands), str(seed), *names, "-q",
             "--start_timeout", str(int(start_timeout * 1000))],
            stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, text=True, cwd=logs)
    procs = [dealer]
    try:
        ports = dealer.stdout.readline().split()
        if len(ports) != 2:
            dealer.wait(timeout=10)
            raise CfrlabError(f"the dealer did not print two ports: {dealer_err.read_text().strip()[:200]!r}")
        client_cmd = [sys.executable, "-m", "cfrlab.cli.main", "connect", str(game), "127.0.0.1",
                      ports[agent_seat - 1], "--agent", agent, "--seed", str(seed),
                      "--log", str(logs / f"{tag}.client.log")]
        peer_cmd = [str(acpc / "example_player"), str(game), "127.0.0.1", ports[2 - agent_seat]]
        client = _start(client_cmd, logs / f"{tag}.client.stderr")
        peer = _start(peer_cmd, logs / f"{tag}.example_player.out")
        procs += [client, peer]
        score_line = dealer.stdout.read() if _wait(procs, timeout) else ""
    finally:
        timed_out = any(p.poll() is None for p in procs)
        _stop(procs)
        dealer.stdout.close()
    wall = time.perf_counter() - t0
    return _outcome(logs, tag, agent_seat, score_line, wall, timed_out, client_rc=procs[1].returncode
                    if len(procs) > 1 else None)


def _outcome(logs: Path, tag: str, agent_seat: int, score_text: str, wall: float, timed_out: bool,
             client_rc: int | None) -> dict:
    dealer_log = logs / f"{tag}.log"
    log_lines = dealer_log.read_text().splitlines() if dealer_log.exists() else []
    dealer_hands = sum(1 for ln in log_lines if ln.startswith("STATE:"))
    complaints = [f"dealer: {ln}" for ln in (logs / f"{tag}.dealer.stderr").read_text().splitlines()
                  if ln.startswith(("ERROR", "WARNING"))]
    client_out = (logs / f"{tag}.client.stderr")
    client_text = client_out.read_text() if client_out.exists() else ""
    complaints += [f"cfrlab client: {ln}" for ln in client_text.splitlines()
                   if ln.startswith(("WARNING", "cfrlab: error"))]
    if client_rc not in (0, None):
        complaints.append(f"cfrlab client exited with status {client_rc}")
    if timed_out:
        complaints.append("the match was stopped before it finished (a player failed, or the time ran out)")
    m = _CLIENT_SUMMARY.search(client_text)
    score = next((_SCORE.match(ln) for ln in [*score_text.splitlines(), *log_lines] if _SCORE.match(ln)), None)
    chips = None
    if score is not None:
        values = dict(zip(score.group(2).split("|"), (float(v) for v in score.group(1).split("|"))))
        chips = values.get(AGENT_NAME)
        if m and chips is not None and abs(float(m.group(2)) - chips) > 1e-6:  # both sides must agree on payoffs
            complaints.append(f"the client counts {m.group(2)} chips, the dealer {chips:g}")
    else:
        complaints.append("no SCORE line from the dealer")
    return {"agent_seat": agent_seat, "dealer_hands": dealer_hands,
            "client_hands": int(m.group(1)) if m else None, "errors": len(complaints),
            "complaints": complaints[:20], "agent_chips": chips,
            "client_chips": float(m.group(2)) if m else None, "wall_seconds": round(wall, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--acpc", metavar="DIR", help="directory of the built dealer and example_player "
                    "(default: $CFRLAB_ACPC_DIR)")
    ap.add_argument("--game", metavar="FILE_OR_NAME", default=None, help=f"default: DIR/{ACPC_GAME}")
    ap.add_argument("--agent", metavar="SPEC", required=True, help="any cfrlab connect --agent spec")
    ap.add_argument("--hands", type=int, default=1000, help="hands per match (two matches)")
    ap.add_argument("--seed", type=int, default=1, help="dealer's deck seed and the agent's seed")
    ap.add_argument("--logs", metavar="DIR", help="keep the dealer logs and client transcripts here")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed per match")
    ap.add_argument("--start-timeout", type=float, default=600.0,
                    help="seconds the dealer waits for the players to connect (agent loading)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        if args.hands < 1:
            raise CfrlabError(f"--hands must be at least 1, got {args.hands}")
        acpc = acpc_dir(args.acpc)
        with tempfile.TemporaryDirectory(prefix="cfrlab-acpc-") as tmp:
            logs = Path(args.logs) if args.logs else Path(tmp)
            logs.mkdir(parents=True, exist_ok=True)
            logs = logs.resolve()
            game_path, game = game_file(args.game, acpc, logs)
            if game.num_players != 2:
                raise CfrlabError(f"{game_path.name} is a {game.num_players}-player game; this script "
                                  "seats one agent and one example_player (2 players)")
            matches = [play_match(acpc, game_path, args.agent, args.hands, args.seed, seat, logs,
                                  args.timeout, args.start_timeout) for seat in (1, 2)]
    except CfrlabError as e:
        print(f"acpc_dealer: {e}", file=sys.stderr)
        return 2
    print(f"ACPC dealer ({acpc}), game {game_path.name}, agent {args.agent!r} vs example_player, "
          f"{args.hands:,} hands per seat, seed {args.seed}")
    for m in matches:
        if m["agent_chips"] is not None and m["dealer_hands"]:
            m["agent_per_game"] = to_unit(game, m["agent_chips"] / m["dealer_hands"])
            m["unit"] = unit_of(game)
        rate = (f", {format_unit(game, m['agent_chips'] / m['dealer_hands'])}"
                if m["agent_chips"] is not None and m["dealer_hands"] else "")
        print(f"  agent in seat {m['agent_seat']}: {m['dealer_hands']:,} hands logged by the dealer, "
              f"{m['client_hands'] if m['client_hands'] is not None else '?'} finished by the client, "
              f"{m['errors']} protocol errors, agent {m['agent_chips']} chips{rate}, {m['wall_seconds']:.1f} s")
        for c in m["complaints"]:
            print(f"    {c}")
    errors = sum(m["errors"] for m in matches)
    total = sum(m["wall_seconds"] for m in matches)
    print(f"  total: {errors} protocol errors, {total:.1f} s wall")
    if args.json:
        print(json.dumps({"agent": args.agent, "game": game_path.name, "hands_per_seat": args.hands,
                          "seed": args.seed, "errors": errors, "wall_seconds": round(total, 3),
                          "matches": matches}))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
