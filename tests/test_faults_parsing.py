"""Issue 43 (fault injection), parsing: numbers too big for their field are refused in one
line naming the field, never a traceback (Python's int() raises past 4,300 digits) and never
accepted (the ACPC dealer numbers hands with a uint32 and keeps chips in int32); a client
does not answer a match state it refuses."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from cli_run import run
from play_helpers import HOST, WAIT, CallAgent, FakeDealer

from cfrlab.agents import make_agent
from cfrlab.counter import build_model
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.evaluate.aivat import aivat_log
from cfrlab.evaluate.divat import divat_log
from cfrlab.evaluate.histories import read_log
from cfrlab.games import load_game
from cfrlab.games.matchstate import parse_log_line, parse_match_state
from cfrlab.play.client import run_client

KUHN = load_game("kuhn")
HUGE = "1" * 5000  # int() refuses more than 4,300 digits
LONG = "1" * 4000  # int() reads it: only a bound refuses it
MAX_HAND_NUMBER = 2**32 - 1  # the ACPC dealer's State.handId is a uint32

GOOD = "STATE:0:rc:Ks|Qs:2|-2:a|b\n"


def _one_short_line(msg: str) -> None:
    assert "\n" not in msg and len(msg) < 400, msg


# -- match states and log lines ----------------------------------------------------------------


@pytest.mark.parametrize("line, words", [
    (f"MATCHSTATE:0:{HUGE}::Ks|", "hand number"),
    (f"MATCHSTATE:0:{LONG}::Ks|", "hand number"),
    (f"MATCHSTATE:0:{MAX_HAND_NUMBER + 1}::Ks|", "hand number 4294967296 is out of range"),
    (f"MATCHSTATE:{HUGE}:0::Ks|", "position"),
    ("MATCHSTATE:2:0::Ks|", "position 2 is out of range (0..1)"),
])
def test_a_match_state_with_a_number_past_its_field_is_refused(line, words):
    with pytest.raises(ParseError) as e:
        parse_match_state(KUHN, line)
    assert words in str(e.value)
    _one_short_line(str(e.value))


def test_the_largest_hand_number_is_read():
    from cfrlab.games.matchstate import MAX_HAND_NUMBER as bound

    assert bound == MAX_HAND_NUMBER
    assert parse_match_state(KUHN, f"MATCHSTATE:0:{MAX_HAND_NUMBER}::Ks|").hand_number == 2**32 - 1
    assert parse_match_state(KUHN, "MATCHSTATE:0:007::Ks|").hand_number == 7


@pytest.mark.parametrize("amount", [HUGE, "9" * 30, "2147483648"])
def test_a_raise_amount_past_int32_is_refused_short(amount):
    with pytest.raises(ParseError) as e:
        parse_match_state(load_game("holdem-nolimit"), f"MATCHSTATE:0:0:r{amount}:AsKs|")
    assert "raise amount" in str(e.value) and "out of range" in str(e.value)
    _one_short_line(str(e.value))


@pytest.mark.parametrize("hand", [HUGE, LONG])
def test_a_log_line_with_a_huge_hand_number_is_refused(hand):
    with pytest.raises(ParseError, match="hand number .* out of range") as e:
        parse_log_line(KUHN, f"STATE:{hand}:rc:Ks|Qs:2|-2:a|b")
    _one_short_line(str(e.value))


# -- every reader of a log, and the CLI commands that read logs ---------------------------------


def _consumers(game):
    yield "log", lambda p: read_log(p, game)
    yield "model", lambda p: build_model([p], game, "a")
    yield "divat", lambda p: divat_log([p], "a", game)
    yield "aivat", lambda p: aivat_log([p], "a", opponent=make_agent("always-call", game), game=game, value="calldown")


# a huge hand number on an otherwise good line (the compiled scan reads it), on a line whose
# values are wrong (the full parser explains it) and on a line with lower-case cards
BIG_LOGS = {
    "good line": GOOD + f"STATE:{HUGE}:rc:Ks|Qs:2|-2:a|b\n",
    "bad values": GOOD + f"STATE:{HUGE}:rc:Ks|Qs:3|-3:a|b\n",
    "lower-case cards": GOOD + f"STATE:{HUGE}:rc:ks|Qs:2|-2:a|b\n",
    "4,000 digits": GOOD + f"STATE:{LONG}:rc:Ks|Qs:2|-2:a|b\n",
    "one past uint32": GOOD + f"STATE:{MAX_HAND_NUMBER + 1}:rc:Ks|Qs:2|-2:a|b\n",
}


@pytest.mark.parametrize("case", sorted(BIG_LOGS))
def test_every_log_reader_refuses_a_huge_hand_number_naming_the_line(tmp_path, case):
    p = tmp_path / "big.log"
    p.write_text(BIG_LOGS[case])
    for who, read in _consumers(KUHN):
        with pytest.raises(CfrlabError) as e:
            read(p)
        msg = str(e.value)
        assert "big.log:2: hand number" in msg and "out of range" in msg, (who, msg)
        _one_short_line(msg)


def test_the_log_readers_still_take_the_largest_hand_number(tmp_path):
    p = tmp_path / "ok.log"
    p.write_text(GOOD + f"STATE:{MAX_HAND_NUMBER}:rc:Qs|Ks:-2|2:a|b\n")
    for who, read in _consumers(KUHN):
        read(p)


def test_cli_log_commands_refuse_a_huge_hand_number_in_one_line(capsys, tmp_path):
    p = tmp_path / "big.log"
    p.write_text(BIG_LOGS["bad values"])
    for argv in (["log", "kuhn", str(p)],
                 ["counter", "model", "kuhn", str(p), "--player", "a", "--out", str(tmp_path / "m.npz")],
                 ["divat", str(p), "--player", "a", "--game", "kuhn"],
                 ["aivat", str(p), "--player", "a", "--opponent", "always-call", "--game", "kuhn"]):
        code, _, err = run(capsys, *argv)
        assert code != 0 and "Traceback" not in err, (argv, err)
        lines = err.strip().splitlines()
        assert lines[-1].startswith("cfrlab: error:") and "big.log:2: hand number" in lines[-1], (argv, err)
        assert len(lines[-1]) < 400
    assert not (tmp_path / "m.npz").exists()


def test_cli_game_show_refuses_a_5000_digit_number(capsys, tmp_path):
    from cfrlab.games.builtins import LEDUC

    p = tmp_path / "big.game"
    p.write_text(LEDUC.replace("raiseSize = 2 4", f"raiseSize = 2 {HUGE}"))
    code, _, err = run(capsys, "game", "show", str(p))
    assert code != 0 and "Traceback" not in err
    assert err.startswith("cfrlab: error: line 6: raiseSize values must be at most 2147483647") and err.count("\n") == 1


# -- the client (cfrlab connect) -----------------------------------------------------------------


@pytest.mark.parametrize("hand", [LONG, HUGE])
def test_the_client_does_not_answer_a_match_state_with_a_huge_hand_number(hand):
    fake = FakeDealer([
        ("send", f"MATCHSTATE:0:{hand}::Ks|"),   # its turn, but no dealer sends this hand number
        ("send", "MATCHSTATE:0:0::Ks|"),         # its turn: this one is answered
        ("reply",),
        ("send", "MATCHSTATE:0:0:cc:Ks|Qs"),
    ])
    fake.start()
    err = io.StringIO()
    res = run_client(HOST, fake.port, KUHN, CallAgent(), err=err, idle_timeout=WAIT)
    fake.join(WAIT)
    assert fake.replies == ["MATCHSTATE:0:0::Ks|:c"]
    pieces = 1 if hand == LONG else 2  # a line past 4,095 characters arrives in pieces (play.protocol)
    assert res.ignored_lines == pieces and res.actions == 1 and res.hands == 1
    warning = err.getvalue().splitlines()[0]
    assert len(warning) < 500
    if hand == LONG:
        assert "hand number" in warning and "out of range" in warning


def test_connect_cli_refuses_the_line(capsys, tmp_path):
    fake = FakeDealer([("send", f"MATCHSTATE:0:{LONG}::Ks|"), ("send", "MATCHSTATE:0:0::Ks|"), ("reply",),
                       ("send", "MATCHSTATE:0:0:cc:Ks|Qs")])
    fake.start()
    log = tmp_path / "t.log"
    code, _, err = run(capsys, "connect", "kuhn", HOST, str(fake.port), "--agent", "always-call", "--seed", "1",
                       "--log", str(log), "--timeout", str(WAIT))
    fake.join(WAIT)
    assert code == 0 and "Traceback" not in err
    assert fake.replies == ["MATCHSTATE:0:0::Ks|:c"]
    assert "1 bad lines ignored" in err
    sent = [x for x in Path(log).read_text().splitlines() if x.startswith("<-C MATCHSTATE")]
    assert sent == ["<-C MATCHSTATE:0:0::Ks|:c"]


# -- the dealer's version handshake (play.protocol) -----------------------------------------------


def test_a_version_number_past_uint32_is_no_version_string():
    from cfrlab.play.protocol import parse_version

    assert parse_version("VERSION:2.0.0") == (2, 0, 0)
    assert parse_version(f"VERSION:2.0.{2**32 - 1}") == (2, 0, 2**32 - 1)
    for bad in (f"VERSION:{HUGE}.0.0", f"VERSION:2.{LONG}.0", f"VERSION:2.0.{2**32}"):
        assert parse_version(bad) is None  # the dealer then says "invalid version string"


def test_the_dealer_refuses_a_huge_version_in_one_line():
    from play_helpers import DealerThread, ScriptedSeat

    d = DealerThread(KUHN, 2, 1, t_response_ms=5000)
    seats = [ScriptedSeat(d.ports[0], KUHN, version=f"VERSION:{LONG}.0.0"), ScriptedSeat(d.ports[1], KUHN)]
    for s in seats:
        s.start()
    res = d.join()
    for s in seats:
        s.join(WAIT)
    assert not res.completed and "invalid version string" in res.error and len(res.error) < 200


# -- the CLI's number options in the commands that read files -------------------------------------


@pytest.fixture(scope="module")
def kuhn_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("model")
    log = d / "k.log"
    log.write_text(GOOD + "STATE:1:cc:Ks|Qs:1|-1:b|a\n")
    path = d / "m.npz"
    build_model([log], KUHN, "a").save(path)
    return path


@pytest.mark.parametrize("n", ["-3", "0", str(2**31), "9" * 30])
def test_perturbed_iterations_out_of_range_are_refused(capsys, n):
    # -3 ran "after -3 iterations"; past int64 numba raised a typing traceback
    code, out, err = run(capsys, "counter", "perturbed", "kuhn", "-n", n)
    assert code != 0 and "Traceback" not in err and out == ""
    assert err.startswith("cfrlab: error: --iterations must be 1 to 2,147,483,647, got ") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["rnr", "--p", "0.5"], ["dbr", "--p-max", "0.5"], ["sweep", "--p", "0.5"]])
def test_counter_iterations_past_the_bound_are_refused_before_any_work(capsys, kuhn_model, argv):
    code, _, err = run(capsys, "counter", argv[0], str(kuhn_model), *argv[1:], "-n", "9" * 40)
    assert code != 0 and "--iterations must be 1 to 2,147,483,647, got a number of more than 30 digits" in err


@pytest.mark.parametrize("rows", ["0", "-5"])
def test_strategy_show_refuses_rows_below_one(capsys, tmp_path, rows):
    from cfrlab.strategy import Strategy

    p = tmp_path / "k.npz"
    Strategy.uniform("kuhn").save(p)
    code, out, err = run(capsys, "strategy", "show", str(p), "--rows", rows)
    assert code != 0 and out == "" and f"--rows takes the number of private states to list, at least 1, got {rows}" in err


# -- agent specs (issue 43, item 11) ------------------------------------------------------------


@pytest.fixture(scope="module")
def strategy_files(tmp_path_factory):
    from cfrlab.strategy import Strategy

    d = tmp_path_factory.mktemp("specs")
    Strategy.uniform("kuhn").save(d / "k.npz")
    Strategy.uniform("kuhn-nolimit").save(d / "knl.npz")
    return d


@pytest.mark.parametrize("suffix, game, problem", [
    (":", "kuhn", "an empty option after the colon"),
    (":,", "kuhn", "an empty option"),
    (":greedy,,greedy", "kuhn", "an empty option"),
    (":translation", "kuhn-nolimit", "translation needs a value (translation=RULE)"),  # played pseudo-harmonic
    (":translation=", "kuhn-nolimit", "translation needs a value (translation=RULE)"),
    (":translation", "kuhn", "translation needs a value (translation=RULE)"),
    (":abstraction", "kuhn", "abstraction needs a value (abstraction=FILE)"),  # was ignored
    (":greedy=no", "kuhn", "greedy takes no value"),  # played greedy
    (":greedy,greedy", "kuhn", "greedy given twice"),
])
def test_a_malformed_strategy_option_is_refused_with_the_syntax(strategy_files, suffix, game, problem):
    name = "knl.npz" if "nolimit" in game else "k.npz"
    spec = f"{strategy_files / name}{suffix}"
    with pytest.raises(CfrlabError) as e:
        make_agent(spec, game)
    msg = str(e.value)
    assert problem in msg and "options: greedy, abstraction=FILE, translation=RULE" in msg and "e.g. s.npz:" in msg
    _one_short_line(msg)


def test_well_formed_strategy_options_still_work(strategy_files):
    assert make_agent(f"{strategy_files / 'k.npz'}:greedy", "kuhn").greedy
    assert make_agent(f"{strategy_files / 'k.npz'}: greedy ", "kuhn").greedy
    a = make_agent(f"{strategy_files / 'knl.npz'}:translation=nearest,greedy", "kuhn-nolimit")
    assert a.rule == "nearest" and a.greedy


def test_cli_match_refuses_an_empty_option(capsys, strategy_files):
    code, _, err = run(capsys, "match", "kuhn", f"{strategy_files / 'k.npz'}:", "always-call", "-n", "10")
    assert code != 0 and "Traceback" not in err and "an empty option after the colon" in err


@pytest.mark.parametrize("spec", ["x" * 300, "dir/" + "x" * 300 + ".npz"])
def test_an_agent_name_too_long_for_a_file_is_one_line(spec):
    # Path.exists() raises OSError (ENAMETOOLONG) rather than answering False
    with pytest.raises(CfrlabError) as e:
        make_agent(spec, "kuhn")
    assert "agent" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("spec, words", [
    ("subgame:{k}:" + HUGE + ":resolve", "ROUND is river, turn, flop or a round number"),
    ("subgame:{k}:1:resolve:iterations=" + HUGE, "iterations is a whole number"),
    ("nested:{knl}:resolve:" + HUGE, "iterations must be a whole number"),
])
def test_huge_numbers_in_re_solving_specs_are_one_short_line(strategy_files, spec, words):
    spec = spec.format(k=strategy_files / "k.npz", knl=strategy_files / "knl.npz")
    with pytest.raises(CfrlabError) as e:
        make_agent(spec, "kuhn-nolimit" if spec.startswith("nested") else "kuhn")
    assert words in str(e.value)
    _one_short_line(str(e.value))


# -- a header that lies about its game; what a target that is no strategy file lacks -------------


@pytest.fixture(scope="module")
def lying_files(tmp_path_factory):
    from cfrlab.fileio import save_npz
    from cfrlab.strategy import Strategy

    d = tmp_path_factory.mktemp("lies")
    s = Strategy.uniform("leduc")
    s.header["game_name"] = "kuhn"  # Leduc's definition and arrays, labelled kuhn
    s.save(d / "named.npz")
    k = Strategy.uniform("kuhn")
    save_npz(d / "arrays.npz", dict(k.header), {"policy": s.policy})  # Kuhn's header, Leduc's arrays
    return d


@pytest.mark.parametrize("argv", [["exploit", "{f}"], ["exploit", "{f}", "--real"], ["strategy", "show", "{f}"],
                                  ["match", "leduc", "{f}", "always-call", "-n", "10"]])
def test_a_header_naming_another_game_is_refused_not_used_as_a_label(capsys, lying_files, argv):
    f = lying_files / "named.npz"
    code, out, err = run(capsys, *[a.format(f=f) for a in argv])
    assert code != 0 and "kuhn:" not in out and "Traceback" not in err
    assert err.strip().endswith("corrupt strategy header (it names its game kuhn, but its game definition is leduc's)")
    assert not (lying_files / "named.npz.realbr").exists()


def test_a_header_whose_arrays_are_another_games_is_refused(capsys, lying_files):
    code, out, err = run(capsys, "exploit", str(lying_files / "arrays.npz"))
    assert code != 0 and out == "" and "corrupt strategy file (936 rows, the game has 12)" in err


def test_a_game_file_named_like_a_builtin_keeps_an_honest_name(tmp_path):
    from cfrlab.games.builtins import kuhn_text
    from cfrlab.strategy import Strategy

    p = tmp_path / "kuhn.game"
    p.write_text(kuhn_text(4))  # not cfrlab's kuhn (3 ranks)
    g = load_game(str(p))
    assert g.name == "kuhn.game" and g.num_ranks == 4
    Strategy.uniform(g).save(tmp_path / "k4.npz")
    assert Strategy.load(tmp_path / "k4.npz").game.name == "kuhn.game"
    p.write_text(kuhn_text(3))  # the same game as the built-in: its name
    assert load_game(str(p)).name == "kuhn"


def test_a_huge_kuhn_n_is_an_unknown_game_in_one_line():
    with pytest.raises(CfrlabError, match="unknown game") as e:
        load_game("kuhn-" + HUGE)
    _one_short_line(str(e.value))


@pytest.mark.parametrize("target, words", [
    ("{k}:greedy", "{k}:greedy: a strategy file with options after ':' plays as an agent, which needs --game; the file alone"),
    ("{d}/none.npz:greedy", "no such strategy file {d}/none.npz"),
    ("{d}/none", "no such strategy file {d}/none"),
    ("{d}/none.NPZ", "no such strategy file {d}/none.NPZ"),
    ("nosuchbot", "nosuchbot: no such strategy file, and not a bot name (always-fold"),
    ("always-call", "always-call: a bot needs --game"),
])
def test_exploit_real_says_what_a_target_lacks(capsys, strategy_files, target, words):
    fmt = {"k": strategy_files / "k.npz", "d": strategy_files}
    code, _, err = run(capsys, "exploit", target.format(**fmt), "--real")
    assert code != 0 and "Traceback" not in err
    assert err.startswith("cfrlab: error: " + words.format(**fmt)), err
    assert ("a bot needs --game" in err) == (target == "always-call")


# -- numbers in a strategy file's header -------------------------------------------------------------


@pytest.mark.parametrize("key", ["seconds", "exploitability", "game_value", "iterations", "rows", "seed", "format"])
def test_a_header_number_past_int64_is_a_corrupt_header_in_one_line(capsys, tmp_path, key):
    # seconds / exploitability: float() overflowed (a traceback); iterations was printed whole
    import json

    import numpy as np

    from cfrlab.strategy import Strategy

    p = tmp_path / "h.npz"
    s = Strategy.uniform("kuhn")
    s.header.update(seed=1, game_value=0.0, exploitability=0.5)
    s.save(p)
    with np.load(p, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    text = json.dumps(json.loads(arrays["__header__"].tobytes()))
    h = json.loads(text)
    text = text.replace(f'"{key}": {json.dumps(h[key])}', f'"{key}": {LONG}')
    assert LONG in text
    arrays["__header__"] = np.frombuffer(text.encode(), np.uint8)
    with open(p, "wb") as f:
        np.savez(f, **arrays)
    for argv in (["exploit", str(p)], ["strategy", "show", str(p)]):
        code, out, err = run(capsys, *argv)
        assert code != 0 and out == "" and "Traceback" not in err
        assert err.startswith(f"cfrlab: error: {p}: corrupt strategy header ('{key}' is 11111"), err
        assert err.count("\n") == 1 and len(err) < 300
