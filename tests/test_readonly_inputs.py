"""Issue 43, acceptance: no input file is modified by a read-only command.

Every CLI command that reads a file (strategy, abstraction, opponent model, ``.game``, log,
OpenSpiel policy, matrix, spot TOML, lock TOML, saved spot, results file, checkpoint
directory, deep weights; found by reading ``cli/*.py``) runs in-process on small inputs, and
each input's bytes and modification time must be the same afterwards. Outputs go to fresh
paths. Kuhn, Leduc, a 4-rank 2-suit hold'em and a small river spot keep it fast.

Not run here: ``serve`` and ``spot serve`` (servers that run until stopped), and ``solve
--resume`` / ``cfrbr --resume`` (they continue a checkpoint: writing it is their job)."""

from __future__ import annotations

import importlib.util
import io
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_run import run
from play_helpers import HOST, WAIT, CallAgent, FakeDealer

from cfrlab.games.builtins import LEDUC, kuhn_text

TINY_HOLDEM = """GAMEDEF
limit
numPlayers = 2
numRounds = 3
blind = 2 1
raiseSize = 2 2 4
firstPlayer = 2 1 1
maxRaises = 2 2 2
numSuits = 2
numRanks = 4
numHoleCards = 2
numBoardCards = 0 2 1
END GAMEDEF
"""

KUHN_LOG = """# name/game/hands/seed m kuhn 4 3
STATE:0:rf:As|Qs:1|-1:a|b
STATE:1:crc:Ks|Qs:2|-2:b|a
STATE:2:cc:As|Ks:1|-1:a|b
STATE:3:rc:Ks|Qs:2|-2:b|a
SCORE:-2|2:a|b
"""

RIVER_TOML = """game = "holdem-nolimit"
board = "Qs Jh 2h 8d 3c"
pot = 10
stack = 30
[ranges]
oop = "AA, QJs, 87s:0.5, 54s"
ip = "KK, AQs, 99:0.75, T9s"
[bets]
bet = "p, a"
raise = "a"
"""

LOCK_TOML = """[[lock]]
node = ""
strategy = "x"
"""

MATRIX = """# rock paper scissors
, rock, paper, scissors
rock, 0, -1, 1
paper, 1, 0, -1
scissors, -1, 1, 0
"""


def _state(path: Path) -> dict[str, tuple[bytes, int]]:
    """(bytes, mtime in ns) of the file, or of every file under the folder."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


@contextmanager
def unchanged(*paths: Path):
    """Every file of ``paths`` has the same bytes and mtime after the block."""
    assert all(p.exists() for p in paths), paths
    before = {k: v for p in paths for k, v in _state(p).items()}
    yield
    after = {k: v for p in paths for k, v in _state(p).items()}
    assert after.keys() == before.keys(), "files of an input folder were added or removed"
    for name, (data, mtime) in before.items():
        assert after[name][0] == data, f"{name}: its bytes changed"
        assert after[name][1] == mtime, f"{name}: its modification time changed"


def ok(capsys, *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 0, (argv, err[-2000:])
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """The inputs, written once (by the library or a first CLI run, not by the commands under
    test)."""
    import cfrlab
    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec
    from cfrlab.counter import build_model
    from cfrlab.games import load_game, parse_game
    from cfrlab.interop.openspiel import save_openspiel_json
    from cfrlab.strategy import Strategy

    d = tmp_path_factory.mktemp("readonly")
    f: dict[str, Path] = {}

    def put(name: str, text: str) -> Path:
        f[name] = d / name
        f[name].write_text(text)
        return f[name]

    put("myleduc.game", "# Leduc hold'em\n" + LEDUC)
    put("mykuhn.game", kuhn_text(3))
    put("tiny.game", TINY_HOLDEM)
    put("kuhn.log", KUHN_LOG)
    put("river.toml", RIVER_TOML)
    put("batch.toml", RIVER_TOML.replace('"Qs Jh 2h 8d 3c"', '["Qs Jh 2h", "As 8d 3c"]').replace("stack = 30", "stack = 10"))
    put("lock.toml", LOCK_TOML)
    put("rps.csv", MATRIX)
    for name, game in (("kuhn.npz", "kuhn"), ("leduc.npz", "leduc"), ("myleduc.npz", str(f["myleduc.game"]))):
        f[name] = d / name
        Strategy.uniform(load_game(game)).save(f[name])
    f["k3.npz"] = d / "k3.npz"
    cfrlab.solve("kuhn-3p", "cfr", iterations=5).strategy.save(f["k3.npz"])
    f["model.npz"] = d / "model.npz"
    build_model([f["kuhn.log"]], "kuhn", "a").save(f["model.npz"])
    f["kuhn.json"] = d / "kuhn.json"
    save_openspiel_json(f["kuhn.json"], Strategy.load(f["kuhn.npz"]))
    tiny = parse_game(TINY_HOLDEM, name="tiny")
    f["b2.npz"] = d / "b2.npz"
    BucketedModel.build(tiny, BucketSpec.make(tiny.num_rounds, 2), use_cache=False).save(f["b2.npz"])
    return f


# -- games, strategies, abstractions ----------------------------------------------------------------


def test_game_show(capsys, files):
    with unchanged(files["myleduc.game"]):
        assert "numRanks = 3" in ok(capsys, "game", "show", str(files["myleduc.game"]))


def test_solve_reads_a_game_file_and_an_abstraction(capsys, files, tmp_path):
    with unchanged(files["myleduc.game"]):
        ok(capsys, "solve", str(files["myleduc.game"]), "-a", "cfr+", "-n", "5", "--no-progress", "--out", str(tmp_path / "s.npz"))
    with unchanged(files["tiny.game"], files["b2.npz"]):
        ok(capsys, "solve", str(files["tiny.game"]), "-a", "cfr+", "--abstraction", str(files["b2.npz"]), "-n", "4",
           "--no-progress", "--out", str(tmp_path / "t.npz"))


@pytest.mark.parametrize("key, extra", [("kuhn.npz", ()), ("myleduc.npz", ()), ("k3.npz", ()),
                                        ("kuhn.npz", ("--real",))])
def test_exploit(capsys, files, tmp_path, key, extra):
    ck = ("--checkpoint", str(tmp_path / "ck")) if extra else ()
    with unchanged(files[key]):
        ok(capsys, "exploit", str(files[key]), *extra, *ck)


def test_exploit_real_with_a_results_file_and_a_checkpoint(capsys, files, tmp_path):
    results, ck = tmp_path / "r.npz", tmp_path / "ck"
    ok(capsys, "exploit-real", str(files["leduc.npz"]), "--results", str(results))  # writes it
    with unchanged(files["leduc.npz"], results):  # complete: read back, not rewritten
        ok(capsys, "exploit-real", str(files["leduc.npz"]), "--results", str(results))
    ok(capsys, "exploit", str(files["leduc.npz"]), "--real", "--checkpoint", str(ck))
    with unchanged(files["leduc.npz"], ck):
        ok(capsys, "exploit", str(files["leduc.npz"]), "--real", "--checkpoint", str(ck), "--resume")


def test_a_strategy_solved_in_an_abstraction(capsys, files, tmp_path):
    strat = tmp_path / "ts.npz"
    ok(capsys, "solve", str(files["tiny.game"]), "-a", "cfr+", "--abstraction", str(files["b2.npz"]), "-n", "4",
       "--no-progress", "--no-real", "--out", str(strat), "--checkpoint-every", "2")
    ckpt = tmp_path / "ts.ckpt.npz"
    with unchanged(strat, files["b2.npz"]):
        ok(capsys, "exploit", str(strat), "--abstraction", str(files["b2.npz"]))
        ok(capsys, "strategy", "show", str(strat), "--abstraction", str(files["b2.npz"]))
        ok(capsys, "abstract", "info", str(files["b2.npz"]))
    assert ckpt.exists()  # a finished run's curve, which experiment convergence reads
    with unchanged(ckpt, files["b2.npz"]):
        ok(capsys, "experiment", "convergence", "--abstraction", str(files["b2.npz"]),
           "--checkpoint", str(ckpt), "--out-dir", str(tmp_path / "conv"))


def test_strategy_show_export_import(capsys, files, tmp_path):
    with unchanged(files["leduc.npz"]):
        ok(capsys, "strategy", "show", str(files["leduc.npz"]))
        ok(capsys, "strategy", "show", str(files["leduc.npz"]), "--betting", "r", "--cards", "Ks")
        ok(capsys, "strategy", "export", str(files["kuhn.npz"]), "--out", str(tmp_path / "k.json"))
    with unchanged(files["kuhn.json"]):
        ok(capsys, "strategy", "import", "kuhn", str(files["kuhn.json"]), "--out", str(tmp_path / "k.npz"))


def test_abstract_sizes_and_build_read_a_game_file(capsys, files, tmp_path):
    with unchanged(files["tiny.game"]):
        ok(capsys, "abstract", "sizes", str(files["tiny.game"]), "--buckets", "2")
        ok(capsys, "abstract", "build", str(files["tiny.game"]), "--buckets", "2", "-o", str(tmp_path / "a.npz"),
           "-q")


def test_subgame(capsys, files):
    with unchanged(files["leduc.npz"], files["myleduc.game"]):
        ok(capsys, "subgame", str(files["leduc.npz"]), "--game", str(files["myleduc.game"]), "-n", "10")
        ok(capsys, "search", str(files["leduc.npz"]), "--game", str(files["myleduc.game"]), "-n", "5", "--k", "2")


def test_value_net_reads_a_game_file(capsys, files, tmp_path):
    pytest.importorskip("jax")
    with unchanged(files["myleduc.game"]):
        ok(capsys, "value-net", str(files["myleduc.game"]), "--data", str(tmp_path / "d"), "-o",
           str(tmp_path / "n.npz"), "--situations", "10", "--solve-iterations", "5", "--steps", "5", "--hidden", "4")


def test_cfrbr_reads_a_game_file_and_an_abstraction(capsys, files, tmp_path):
    with unchanged(files["tiny.game"], files["b2.npz"]):
        ok(capsys, "cfrbr", str(files["tiny.game"]), "--abstraction", str(files["b2.npz"]), "-n", "2",
           "--eval-every", "0", "--out", str(tmp_path / "c.npz"))


def test_lbr(capsys, files):
    with unchanged(files["kuhn.npz"]):
        ok(capsys, "lbr", str(files["kuhn.npz"]), "--hands", "200")


# -- matches, logs, models ----------------------------------------------------------------------------


def test_match_and_crosstable_read_strategy_and_game_files(capsys, files, tmp_path):
    game, a, b = str(files["myleduc.game"]), str(files["myleduc.npz"]), str(files["leduc.npz"])
    with unchanged(files["myleduc.game"], files["myleduc.npz"], files["leduc.npz"]):
        ok(capsys, "match", game, a, f"{b}:greedy", "-n", "50", "--seed", "1", "--log", str(tmp_path / "m.log"))
        ok(capsys, "crosstable", game, a, b, "always-call", "-n", "20", "--seed", "1")


def test_log_divat_aivat(capsys, files):
    log = str(files["kuhn.log"])
    with unchanged(files["kuhn.log"], files["kuhn.npz"]):
        ok(capsys, "log", "kuhn", log)
        ok(capsys, "divat", log, "--player", "a")
        ok(capsys, "aivat", log, "--player", "a", "--strategy", str(files["kuhn.npz"]))


def test_counter_commands_read_logs_models_and_game_files(capsys, files, tmp_path):
    model = str(files["model.npz"])
    with unchanged(files["kuhn.log"], files["model.npz"], files["myleduc.game"]):
        ok(capsys, "counter", "model", "kuhn", str(files["kuhn.log"]), "--player", "a", "--out", str(tmp_path / "m.npz"))
        ok(capsys, "counter", "fbr", model)
        ok(capsys, "counter", "rnr", model, "--p", "0.5", "-n", "20")
        ok(capsys, "counter", "dbr", model, "--p-max", "0.5", "-n", "20")
        ok(capsys, "counter", "sweep", model, "--p", "0,1", "-n", "20", "--csv", str(tmp_path / "s.csv"))
        ok(capsys, "counter", "perturbed", str(files["myleduc.game"]), "--bonus", "0.1", "-n", "10")


def test_matrix_reads_a_payoff_file(capsys, files):
    with unchanged(files["rps.csv"]):
        ok(capsys, "matrix", str(files["rps.csv"]), "-n", "100")


# -- playing: the ACPC client and dealer, the terminal ------------------------------------------------


def test_connect_reads_the_game_and_the_strategy(capsys, files, tmp_path):
    # seat 1 of a Leduc hand: it answers the bet; the dealer then says it folded (its reply does
    # not matter to the test)
    fake = FakeDealer([("send", "MATCHSTATE:1:0::|Ks"), ("send", "MATCHSTATE:1:0:r:|Ks"), ("reply",),
                       ("send", "MATCHSTATE:1:0:rf:|Ks")])
    fake.start()
    with unchanged(files["myleduc.game"], files["myleduc.npz"]):
        ok(capsys, "connect", str(files["myleduc.game"]), HOST, str(fake.port), "--agent", str(files["myleduc.npz"]),
           "--seed", "1", "--log", str(tmp_path / "t.log"), "--timeout", str(WAIT))
    fake.join(WAIT)


def test_dealer_reads_the_game_file(capsys, files, tmp_path, monkeypatch):
    import socket

    from cfrlab.games import load_game
    from cfrlab.play.client import run_client

    ports = []
    for _ in range(2):  # two free ports, released for the dealer to bind
        s = socket.socket()
        s.bind((HOST, 0))
        ports.append(s.getsockname()[1])
        s.close()
    game = load_game(str(files["myleduc.game"]))
    seats = [threading.Thread(target=_seat, args=(run_client, p, game), daemon=True) for p in ports]
    for t in seats:
        t.start()
    with unchanged(files["myleduc.game"]):
        ok(capsys, "dealer", str(files["myleduc.game"]), "-n", "3", "--seed", "1", "--host", HOST,
           "--port", str(ports[0]), "--port", str(ports[1]), "--log", str(tmp_path / "d.log"))
    for t in seats:
        t.join(WAIT)


def _seat(run_client, port, game):
    import time

    for _ in range(100):  # until the dealer listens
        try:
            run_client(HOST, port, game, CallAgent(), err=io.StringIO(), idle_timeout=WAIT, connect_timeout=1)
            return
        except Exception:  # noqa: BLE001 - not listening yet
            time.sleep(0.05)


def test_play_in_the_terminal_reads_the_game_and_the_strategy(capsys, files, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    with unchanged(files["myleduc.game"], files["myleduc.npz"], files["leduc.npz"]):
        ok(capsys, "play", str(files["myleduc.game"]), "--vs", str(files["myleduc.npz"]), "--seed", "1",
           "--trainer", "--trainer-strategy", str(files["leduc.npz"]))


# -- spots ---------------------------------------------------------------------------------------------


def test_spot_sizes_solve_show(capsys, files, tmp_path):
    saved = tmp_path / "river.npz"
    with unchanged(files["river.toml"], files["lock.toml"]):
        ok(capsys, "spot", "sizes", str(files["river.toml"]))
        ok(capsys, "spot", "solve", str(files["river.toml"]), "--iterations", "20", "--threads", "1",
           "--lock", str(files["lock.toml"]), "--save", str(saved), "--out", str(tmp_path / "r.json"))
    with unchanged(saved, files["river.toml"]):
        ok(capsys, "spot", "show", str(saved), "--no-grid", "--no-combos", "--spot", str(files["river.toml"]))
        ok(capsys, "spot", "show", str(saved), "--json", str(tmp_path / "tree.json"), "--depth", "1")
    with unchanged(files["batch.toml"]):
        ok(capsys, "spot", "batch", str(files["batch.toml"]), "--iterations", "3", "--threads", "1",
           "--out", str(tmp_path / "b.csv"), "--checkpoint", str(tmp_path / "b.ck"))


# -- deep (the JAX extra) --------------------------------------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs the deep extra (JAX)")
def test_deep_tabulate_and_deep_agents(capsys, files, tmp_path):
    weights = tmp_path / "w.npz"
    with unchanged(files["mykuhn.game"]):
        ok(capsys, "deep", "train", str(files["mykuhn.game"]), "-n", "2", "--traversals", "20", "--seed", "1",
           "--out", str(weights))
    with unchanged(weights):
        ok(capsys, "deep", "tabulate", str(weights), "--out", str(tmp_path / "t.npz"))
        ok(capsys, "match", "kuhn", f"deep:{weights}", "always-call", "-n", "20", "--seed", "1")


# -- every command is here ------------------------------------------------------------------------------

# the commands this module runs on their input files, and the ones it does not
COVERED = {
    "abstract build", "abstract info", "abstract sizes", "aivat", "cfrbr", "connect", "counter dbr",
    "counter fbr", "counter model", "counter perturbed", "counter rnr", "counter sweep", "crosstable",
    "dealer", "deep tabulate", "deep train", "divat", "experiment convergence", "exploit", "exploit-real",
    "game show", "lbr", "log", "match", "matrix", "play", "solve", "spot batch", "spot show", "spot sizes", "spot solve",
    "strategy export", "strategy import", "strategy show", "subgame", "search", "value-net",
}
READS_NO_FILE = {"games"}
SERVERS = {"serve", "spot serve"}  # they run until stopped: not in a fast test


def _commands() -> set[str]:
    import importlib

    import typer

    from cfrlab.cli.main import COMMANDS

    found: set[str] = set()

    def walk(cmd, prefix: str) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{prefix} {name}".strip())
        else:
            found.add(prefix)

    for module in {m for m, _ in COMMANDS.values()}:
        app = typer.Typer()
        app.callback()(lambda: None)  # a group even with one command
        importlib.import_module(f"cfrlab.cli.{module}").register(app)
        walk(typer.main.get_command(app), "")
    return found


def test_every_command_that_reads_a_file_is_run_here():
    assert _commands() == COVERED | READS_NO_FILE | SERVERS
