"""``make_agent(spec, game)``: a built-in bot name or a strategy file -> an Agent.

Specs:

* a bot name: ``always-fold``, ``always-call``, ``always-raise`` (alias ``teddy``), ``probe``,
  ``random``, ``value`` (``value:RAISE,CALL`` sets the hand-strength thresholds, e.g.
  ``value:0.8,0.5``);
* a strategy file ``PATH`` (``.npz`` from ``cfrlab solve``), optionally followed by options
  after a colon: ``PATH:greedy`` plays each row's most likely action instead of sampling;
  ``PATH:abstraction=FILE`` names the abstraction a bucketed strategy was solved in (when
  the strategy file does not say); options combine with commas (``PATH:greedy,abstraction=F``);
  an empty option, an option without its value or a flag with one is refused;
* a no-limit strategy solved in a betting abstraction (``cfrlab solve GAME --bets fcpa``) plays
  the real game through action translation (``cfrlab.agents.translation``), by the
  pseudo-harmonic rule unless ``PATH:translation=RULE`` names another (``pseudo-harmonic``,
  ``pseudo-harmonic-det``, ``geometric``, ``nearest``); a translation on a limit game is refused;
* networks from ``cfrlab deep train``: ``deep:FILE`` plays their policy, tabulated on every
  information set (``cfrlab.deep.load_deep_strategy``; SD-CFR's mixture of its iteration
  networks, the same play as sampling one network per hand); refused for another game;
* your own Python agent class: ``py:FILE.py:ClassName`` or ``py:package.module:ClassName``
  (the class is an ``Agent`` subclass built with no arguments; see docs/matches.md);
* a blueprint played by depth-limited search (``cfrlab.subgame.search_agent``, games whose real
  cards enumerate): ``search:BLUEPRINT[:depth=1,actions=N,k=4,factor=5,method=resolve,
  iterations=300,time=2,continual=no,abstraction=FILE,net=FILE]`` (``continual=yes``: it also solves again
  at each of its own decisions; ``net``: value networks, ``cfrlab value-net``, at the leaves);
* a blueprint that re-solves the subgames it reaches: ``subgame:BLUEPRINT:ROUND:METHOD``
  (``cfrlab.subgame.agent``), ROUND ``river`` (the last), ``turn``, ``flop`` or a number,
  METHOD ``unsafe``, ``resolve``, ``maxmargin`` or ``reach``; options after a fourth colon:
  ``iterations=N`` (CFR+ iterations per subgame, 300), ``time=SECONDS`` (the budget per
  subgame, 2; 0 for none) and ``abstraction=FILE`` (e.g.
  ``subgame:cfr5.npz:river:resolve:iterations=200,time=1``);
* a no-limit blueprint that re-solves at off-tree opponent bets instead of translating them
  (nested subgame solving, ``cfrlab.subgame.nested``; games small enough for their full tree):
  ``nested:FILE[:METHOD[:ITERATIONS]]``, METHOD ``resolve`` (default), ``maxmargin`` or
  ``unsafe``;
* a team: ``team:COACH[:REWARD]=SPEC,SPEC,...`` (``cfrlab.agents.team``): a coach (``ucb1``
  or ``darse``) picks a member for each hand, rewarded by ``money`` (default), ``divat`` or
  ``showdown`` (DIVAT values where the cards were shown); members are specs as above,
  separated by commas (so a member takes at most one option: ``PATH:abstraction=FILE``).

In a game of more than two players (``kuhn-3p``, ``leduc-3p``) a strategy file or
a ``Strategy`` of more than two players becomes an ``NPolicyAgent`` (``cfrlab.agents.nplayer``), and
the table bots (always-fold, always-call, always-raise, probe, random) take their N-player form,
the same decisions as a policy table over the game's information sets, wherever the N-player
engine can enumerate the game's deals (elsewhere, and for the value bot, the bot itself plays).
A strategy file for another number of players is refused in one line.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import numpy as np

from cfrlab.abstraction.deals import MAX_DEALS
from cfrlab.agents.bots import BOTS, ValueBot
from cfrlab.agents.nplayer import NPolicyAgent, table_policy
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.agents.team import COACHES, REWARDS, TeamAgent
from cfrlab.agents.translation import TranslatedStrategy
from cfrlab.deep.cfvnet import load_cfvnet
from cfrlab.deep.network import load_deep_strategy, load_nets
from cfrlab.deep.play import NetAgent, fits_table
from cfrlab.engine import load_abstraction
from cfrlab.engine.nplayer import check_game, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, printable
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.agent import Agent, has_table
from cfrlab.games.gamedef import shown_input
from cfrlab.strategy import STRATEGY_KIND, Strategy
from cfrlab.subgame.agent import DEFAULT_SECONDS, SubgameAgent
from cfrlab.subgame.nested import NestedSolver
from cfrlab.subgame.search_agent import SearchAgent

BOT_NAMES = tuple(BOTS)


def bot_names() -> str:
    return ", ".join(BOT_NAMES)


def _is(test) -> bool:
    """``Path.exists`` / ``is_file`` / ``is_dir``, False where the name cannot be a file (too
    long for the file system: ENAMETOOLONG is an OSError, not a False)."""
    try:
        return bool(test())
    except (OSError, ValueError):
        return False


def _value_bot(arg: str) -> Agent:
    try:
        raise_at, call_at = (float(x) for x in arg.split(","))
    except ValueError:
        raise CfrlabError(f"value bot thresholds are 'value:RAISE,CALL' (e.g. value:0.8,0.5), got {arg!r}") from None
    return ValueBot(raise_at, call_at)


STRATEGY_OPTIONS = "greedy, abstraction=FILE, translation=RULE"
OPTION_SYNTAX = (f"options: {STRATEGY_OPTIONS}, after a colon and separated by commas, "
                 "e.g. s.npz:greedy,translation=geometric")


def _split_options(spec: str) -> tuple[str, dict[str, str]]:
    """'PATH:opt,k=v' -> ('PATH', {...}) unless PATH itself (with its colon) is a file. An
    empty option (``s.npz:``, ``a,,b``), a flag given a value (``greedy=no``), an option
    without its value (``translation``) or one given twice is refused in one line."""
    if _is(Path(spec).exists) or ":" not in spec:
        return spec, {}
    path, _, opts = spec.rpartition(":")
    out: dict[str, str] = {}
    for item in (o.strip() for o in opts.split(",")):
        key, eq, val = (x.strip() for x in item.partition("="))
        if not item:
            problem = "an empty option" + (" after the colon" if not opts.strip() else "")
        elif key not in ("greedy", "abstraction", "translation"):
            problem = f"unknown strategy option {shown_input(key, 40)}"
        elif key == "greedy" and eq:
            problem = "greedy takes no value"
        elif key != "greedy" and not val:
            problem = f"{key} needs a value ({key}={'FILE' if key == 'abstraction' else 'RULE'})"
        elif key in out:
            problem = f"{key} given twice"
        else:
            out[key] = val
            continue
        raise CfrlabError(f"agent {shown_input(spec)}: {problem} ({OPTION_SYNTAX})")
    return path, out


def _file_game(path: str) -> GameDef | None:
    """The game a strategy file says it is for (None when the header cannot tell: the loader
    then says what is wrong)."""
    try:
        with NpzReader(path, kind=STRATEGY_KIND) as z:
            text = z.header.get("game")
            name = z.header.get("game_name") or ""
        return parse_game(str(text), name=str(name)) if text else None
    except (CfrlabError, OSError, ValueError):
        return None


def check_players(what: str, file_game: GameDef, game: GameDef) -> None:
    """One line when a strategy for ``file_game`` is asked to play ``game`` with another player count."""
    if file_game.num_players != game.num_players:
        raise CfrlabError(f"{what} is a {file_game.num_players}-player strategy ({file_game.name or 'a custom game'}); "
                          f"{game.name or 'this game'} has {game.num_players} players")


def nplayer_agent(strategy: Strategy, game: GameDef, greedy: bool = False, name: str | None = None) -> Agent:
    """An ``NPolicyAgent`` playing ``strategy`` in ``game`` (refused when made for another game)."""
    check_players("the strategy", strategy.game, game)
    if strategy.game.to_text() != game.to_text():
        raise CfrlabError(f"the strategy is for {strategy.game.name or 'another game'}, not for {game.name or 'this game'}")
    return NPolicyAgent.from_strategy(strategy, greedy=greedy, name=name)


def nplayer_form(agent: Agent, game: GameDef) -> Agent:
    """A table bot as an ``NPolicyAgent`` of an N-player game whose deals the N-player engine
    enumerates (same decisions: one row per decision node, whatever the cards); any other agent,
    or any game the engine cannot walk, gets ``agent`` back."""
    try:
        check_game(game)
        if game.num_deals > MAX_DEALS:
            return agent
        engine = get_engine(game)
        fp = agent.fast_policy(engine.tree) if has_table(agent) else None
    except (CfrlabError, NotImplementedError):
        return agent
    if fp is None or fp.states is not None:
        return agent
    table = np.asarray(fp.policy, dtype=np.float64)[np.asarray(fp.offsets, dtype=np.int64)]
    return NPolicyAgent(game, table_policy(engine, table), name=agent.name, greedy=bool(fp.greedy))


def strategy_agent(strategy: Strategy, game: GameDef, greedy: bool = False, name: str | None = None,
                   translation: str | None = None) -> Agent:
    """A 2-player strategy as an agent: a ``StrategyAgent``, or a ``TranslatedStrategy`` for a
    no-limit strategy of a betting abstraction (every legal amount needs no translation) or
    when ``translation`` names a rule; a translation on a limit game is refused."""
    if translation is not None and game.is_limit:
        raise CfrlabError(f"{game.name or 'this game'} is a limit game: a translation rule is for "
                          "no-limit strategies")
    if not game.is_limit and (translation is not None or strategy.tree.bets != "fullgame"):
        rule = translation or "pseudo-harmonic"
        return TranslatedStrategy(strategy, rule, greedy, name=f"{name}:{rule}" if name else None)
    return StrategyAgent(strategy, greedy=greedy, name=name)


def load_strategy_agent(path: str, game: GameDef, greedy: bool = False, abstraction: str | None = None,
                        translation: str | None = None) -> Agent:
    """A StrategyAgent for a strategy file (an ``NPolicyAgent`` in a game of more than two
    players, a ``TranslatedStrategy`` for a no-limit betting abstraction: ``strategy_agent``);
    refuses a file made for another game or another number of players."""
    file_game = _file_game(path)
    if file_game is not None:
        check_players(path, file_game, game)
    if game.num_players > 2:
        if translation is not None:
            raise CfrlabError(f"{path}: action translation is for 2-player no-limit games")
        if abstraction:
            raise CfrlabError(f"{path}: N-player strategies are lossless; abstraction= does not apply")
        strategy = Strategy.load(path, game=game)
        return nplayer_agent(strategy, game, greedy, name=Path(path).stem + (":greedy" if greedy else ""))
    model = None
    if abstraction:
        if not _is(Path(abstraction).is_file):
            raise CfrlabError(f"{path}: no such abstraction file {abstraction}")
        model = load_abstraction(abstraction, game)
    strategy = Strategy.load(path, game=game, model=model)
    name = Path(path).stem + (":greedy" if greedy else "")
    return strategy_agent(strategy, game, greedy, name, translation)


def load_python_agent(target: str) -> Agent:
    """``FILE.py:ClassName`` or ``package.module:ClassName`` -> an instance (no arguments)."""
    where, _, cls_name = target.rpartition(":")
    if not where or not cls_name:
        raise CfrlabError(f"a Python agent is 'py:FILE.py:ClassName' or 'py:module:ClassName', got 'py:{target}'")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise CfrlabError(f"py:{target}: no such file {where}")
            spec = importlib.util.spec_from_file_location(f"cfrlab_user_agent_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(where)
    except CfrlabError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's code: report it in one line
        raise CfrlabError(f"py:{target}: cannot load {where} ({type(e).__name__}: {e})") from None
    cls = getattr(module, cls_name, None)
    if not isinstance(cls, type) or not issubclass(cls, Agent):
        raise CfrlabError(f"py:{target}: {cls_name} is not an Agent subclass in {where}")
    try:
        return cls()
    except Exception as e:  # noqa: BLE001 - the user's constructor
        raise CfrlabError(f"py:{target}: {cls_name}() failed ({type(e).__name__}: {e})") from None


def make_agent(spec: str | Strategy | Agent, game: GameDef | str | None = None,
               seed: int | None = None) -> Agent:
    """An agent from a bot name, a strategy file path (see the module docstring) or a Strategy
    object; an Agent is returned as it is.

    ``seed`` seeds the agent's random choices (``begin_match`` may re-seed it).
    Unknown names raise a one-line CfrlabError listing the bot names.
    """
    if game is None:
        if not isinstance(spec, Strategy):
            raise CfrlabError(f"make_agent({spec!r}) needs the game it plays")
        game = spec.game
    game = load_game(game)
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, Strategy) and spec.num_players > 2:
        agent = nplayer_agent(spec, game)
        agent.begin_match(game, seed)
        return agent
    if isinstance(spec, Strategy):  # no file round trip
        check_players("the strategy", spec.game, game)
        if spec.game.to_text() != game.to_text():
            raise CfrlabError(f"the strategy is for {spec.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        agent = strategy_agent(spec, game, name=printable(spec.header.get("name") or spec.algorithm, 60))  # file text
        agent.begin_match(game, seed)
        return agent
    text = str(spec).strip()
    key = text.lower()
    if key in BOTS:
        agent = BOTS[key]()
        if game.num_players > 2:
            agent = nplayer_form(agent, game)
    elif key.startswith("value:"):
        agent = _value_bot(key[len("value:"):])
    elif key.startswith("team:"):
        agent = _team(text, game, seed)
    elif text.startswith("py:"):
        agent = load_python_agent(text[3:])
    elif text.startswith("deep:"):
        agent = _deep(text, game)
    elif text.startswith("nested:"):
        agent = _nested(text, game)
    elif text.startswith("subgame:"):
        agent = subgame_agent(text, game)
    elif text.startswith("search:"):
        agent = search_agent(text, game)
    else:
        path, opts = _split_options(text)
        p = Path(path)
        if _is(p.is_dir):
            raise CfrlabError(f"agent {shown_input(text)}: {path} is a directory, not a strategy file")
        if not _is(p.is_file):
            if p.suffix or "/" in path or "\\" in path:  # meant as a file
                raise CfrlabError(f"agent {shown_input(text)}: no such strategy file {path}")
            raise CfrlabError(f"unknown agent {shown_input(text)}: not a bot ({bot_names()}), a strategy file "
                              "or a py:FILE.py:Class agent")
        agent = load_strategy_agent(path, game, greedy="greedy" in opts, abstraction=opts.get("abstraction"),
                                    translation=opts.get("translation"))
    agent.begin_match(game, seed)
    return agent


SUBGAME_OPTIONS = ("iterations", "time", "abstraction")


def subgame_agent(text: str, game: GameDef) -> Agent:
    """``subgame:BLUEPRINT:ROUND:METHOD[:iterations=N,time=S,abstraction=FILE]``: a
    ``SubgameAgent`` playing the blueprint file and re-solving each subgame it reaches."""
    usage = "a re-solving agent is subgame:BLUEPRINT:ROUND:METHOD (e.g. subgame:bp.npz:river:resolve)"
    rest = text[len("subgame:"):]
    parts = rest.rsplit(":", 3)
    opts_text = ""
    if len(parts) == 4 and "=" in parts[3]:
        opts_text = parts.pop()
        parts = ":".join(parts).rsplit(":", 2)
    else:
        parts = rest.rsplit(":", 2)
    if len(parts) != 3 or not all(x.strip() for x in parts):
        raise CfrlabError(f"agent {shown_input(text)}: {usage}")
    path, rnd, method = (x.strip() for x in parts)
    opts: dict[str, str] = {}
    for item in filter(None, (o.strip() for o in opts_text.split(","))):
        key, eq, val = item.partition("=")
        if key not in SUBGAME_OPTIONS or not eq:
            raise CfrlabError(f"agent {shown_input(text)}: unknown option {item!r} (options: iterations=N, time=SECONDS, "
                              "abstraction=FILE)")
        opts[key] = val
    if game.num_players != 2:
        raise CfrlabError(f"agent {shown_input(text)}: subgame re-solving plays 2-player games; "
                          f"{game.name or 'this game'} has {game.num_players} players")
    try:
        iterations = int(opts.get("iterations", "300"))
        seconds = float(opts.get("time", str(DEFAULT_SECONDS)))
    except ValueError:
        raise CfrlabError(f"agent {shown_input(text)}: iterations is a whole number and time a number of seconds") from None
    if not _is(Path(path).is_file):
        raise CfrlabError(f"agent {shown_input(text)}: no such strategy file {path}")
    bp = load_strategy_agent(path, game, abstraction=opts.get("abstraction"))
    if not isinstance(bp, StrategyAgent):
        raise CfrlabError(f"agent {shown_input(text)}: the blueprint must be a limit strategy of its game")
    if re.fullmatch(r"[0-9]+", rnd) and len(rnd.lstrip("0")) > 1:  # a game has at most 4 rounds
        raise CfrlabError(f"agent {shown_input(text)}: ROUND is river, turn, flop or a round number (1 to 3), "
                          f"got {shown_input(rnd, 20)}")
    rnd_arg: int | str = int(rnd) if re.fullmatch(r"[0-9]+", rnd) else rnd
    try:
        return SubgameAgent(bp.strategy, rnd_arg, method, iterations=iterations, seconds=seconds,
                            name=f"{Path(path).stem}+{method.lower()}")
    except CfrlabError as e:
        raise CfrlabError(f"agent {shown_input(text)}: {e}") from None


SEARCH_OPTIONS = ("depth", "actions", "k", "factor", "method", "iterations", "time", "continual", "abstraction",
                  "net")


def search_agent(text: str, game: GameDef) -> Agent:
    """``search:BLUEPRINT[:depth=D,k=K,factor=F,method=M,iterations=N,time=S,abstraction=FILE,net=FILE]``:
    a ``SearchAgent`` playing the blueprint file by depth-limited search (``net``: value
    network files separated by ``+``, valuing the leaves of their rounds)."""
    path, opts_text = text[len("search:"):], ""
    head, sep, tail = path.rpartition(":")
    if sep and "=" in tail:
        path, opts_text = head, tail
    if not path.strip():
        raise CfrlabError(f"agent {shown_input(text)}: a search agent is search:BLUEPRINT[:depth=1,k=4,...] "
                          "(e.g. search:bp.npz:k=4,iterations=300)")
    opts: dict[str, str] = {}
    for item in filter(None, (o.strip() for o in opts_text.split(","))):
        key, eq, val = item.partition("=")
        if key not in SEARCH_OPTIONS or not eq:
            raise CfrlabError(f"agent {shown_input(text)}: unknown option {item!r} (options: "
                              f"{', '.join(o + '=' for o in SEARCH_OPTIONS)})")
        opts[key] = val
    if game.num_players != 2:
        raise CfrlabError(f"agent {shown_input(text)}: search plays 2-player games; "
                          f"{game.name or 'this game'} has {game.num_players} players")
    try:
        depth, k = int(opts.get("depth", "1")), int(opts.get("k", "4"))
        actions = int(opts["actions"]) if "actions" in opts else None
        iterations = int(opts.get("iterations", "300"))
        factor, seconds = float(opts.get("factor", "5")), float(opts.get("time", str(DEFAULT_SECONDS)))
    except ValueError:
        raise CfrlabError(f"agent {shown_input(text)}: depth, actions, k and iterations are whole numbers, "
                          "factor and time numbers") from None
    if not _is(Path(path).is_file):
        raise CfrlabError(f"agent {shown_input(text)}: no such strategy file {path}")
    bp = load_strategy_agent(path, game, abstraction=opts.get("abstraction"))
    if not isinstance(bp, StrategyAgent):
        raise CfrlabError(f"agent {shown_input(text)}: the blueprint must be a limit strategy of its game")
    continual = opts.get("continual", "no").strip().lower()
    if continual not in ("yes", "no", "1", "0", "true", "false"):
        raise CfrlabError(f"agent {shown_input(text)}: continual is yes or no, got {shown_input(continual, 20)}")
    try:
        nets = [load_cfvnet(f, game) for f in opts["net"].split("+")] if opts.get("net") else None
        return SearchAgent(bp.strategy, depth=depth, k=k, factor=factor, method=opts.get("method", "resolve"),
                           iterations=iterations, seconds=seconds, continual=continual in ("yes", "1", "true"),
                           actions=actions, nets=nets, name=f"{Path(path).stem}+search")
    except CfrlabError as e:
        raise CfrlabError(f"agent {shown_input(text)}: {e}") from None


def _deep(text: str, game: GameDef) -> Agent:
    """``deep:FILE``: a weights file's policy as a strategy agent, tabulated where the game's
    information sets can be enumerated, else queried per decision (``cfrlab.deep.play``)."""
    path = text[len("deep:"):]
    if not _is(Path(path).is_file):
        raise CfrlabError(f"agent {shown_input(text)}: no such weights file {path}")
    if fits_table(game):
        return strategy_agent(load_deep_strategy(path, game), game, name=Path(path).stem)
    return NetAgent(load_nets(path, game), name=Path(path).stem)  # too large to tabulate: per decision


class NestedAgent(StrategyAgent):
    """A no-limit blueprint that plays its own tree and re-solves a subgame at each off-tree
    bet of the opponent (``cfrlab.subgame.nested.NestedSolver``) instead of translating it."""

    def __init__(self, solver, name: str) -> None:
        super().__init__(solver.strategy(), name=name)
        self.solver = solver

    def _row(self, view) -> tuple[int, np.ndarray]:
        node = self.solver.catch_up(view.betting_string(), view.position)
        rnd = int(self.tree.round[node])
        state = int(self.model.state_of(view.position, view.my_cards, view.visible_board(), rnd))
        d = int(self.tree.decision[node])
        return node, self.solver.policy[self.offsets[d] + state]

    def fast_policy(self, tree):
        return None  # the table grows as it plays: act reads it

    def range_policy(self, game: GameDef):
        return None


def _nested(text: str, game: GameDef) -> Agent:
    """``nested:FILE[:METHOD[:ITERATIONS]]``: a no-limit blueprint solved in a betting
    abstraction, re-solving at off-tree opponent bets by METHOD (resolve, the default;
    maxmargin; unsafe) with ITERATIONS of CFR+ (300) instead of translating them."""
    parts = text[len("nested:"):].split(":")
    if not parts[0] or len(parts) > 3:
        raise CfrlabError(f"agent {shown_input(text)}: nested re-solving is nested:FILE[:METHOD[:ITERATIONS]]")
    path = parts[0]
    if not _is(Path(path).is_file):
        raise CfrlabError(f"agent {shown_input(text)}: no such strategy file {path}")
    method = parts[1] if len(parts) > 1 and parts[1] else "resolve"
    try:
        iterations = int(parts[2]) if len(parts) > 2 else 300
    except ValueError:
        raise CfrlabError(f"agent {shown_input(text)}: iterations must be a whole number, got {shown_input(parts[2], 20)}") from None
    blueprint = Strategy.load(path, game=game)
    check_players("the blueprint", blueprint.game, game)
    solver = NestedSolver(blueprint, method, iterations)
    return NestedAgent(solver, f"nested-{solver.method}:{Path(path).stem}")


def _team(text: str, game: GameDef, seed: int | None) -> Agent:
    """``team:COACH[:REWARD]=A,B,...``: coach ucb1 or darse, reward money (default), divat or
    showdown (``cfrlab.agents.team``)."""
    head, sep, members = text.partition("=")
    parts = head.split(":")
    if not sep or len(parts) not in (2, 3) or not members.strip():
        raise CfrlabError(f"agent {shown_input(text)}: a team is team:COACH=AGENT,AGENT,... (e.g. team:ucb1=a.npz,b.npz)")
    coach = parts[1].lower()
    if coach not in COACHES:
        raise CfrlabError(f"agent {shown_input(text)}: unknown coach {parts[1]!r}; choose from {', '.join(COACHES)}")
    reward = parts[2].lower() if len(parts) == 3 else "money"
    if reward not in REWARDS:
        raise CfrlabError(f"agent {shown_input(text)}: unknown team reward {parts[2]!r}; choose from {', '.join(REWARDS)}")
    specs = [m.strip() for m in members.split(",")]
    if not all(specs):  # "a,,b" or a trailing comma: a member left out by mistake, not skipped
        raise CfrlabError(f"agent {shown_input(text)}: a team member is empty; give AGENT,AGENT,... with no empty entry")
    built = [make_agent(m, game, None if seed is None else seed + i) for i, m in enumerate(specs)]
    return TeamAgent(built, coach, name=f"team-{coach}" + ("" if reward == "money" else f"-{reward}"),
                     reward=reward)
