"""``cfrlab lbr``: local best response in the real game (cfrlab.realgame.lbr)."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from cfrlab.cli.common import (
    BotGameOpt,
    SolvedInOpt,
    TargetArg,
    WorkersOpt,
    check_workers,
    human_seconds,
    json_summary,
    strategy_or_bot,
)
from cfrlab.errors import CfrlabError

MAX_HOURS = 24.0  # a run the pace so far says would take longer is refused without --force
PACE_SECONDS = 1.0  # the pace is measured over this long after the first units (compiles, workers)
PACE_UNITS = 10  # ... or over this many units, whichever comes first (at least 0.2 s)


class PaceCheck:
    """Refuse, a second or so into the run, one whose measured pace says it would take more
    than ``MAX_HOURS`` (``cfrlab lbr --hands 10**12`` was 596,870 h), unless ``force``. The pace
    is measured from the moment every worker has finished a unit (numba compiles, workers
    start) over ``PACE_SECONDS`` or ``PACE_UNITS`` units; ``settled`` says when it was checked."""

    def __init__(self, hands: int, block: int, workers: int, force: bool) -> None:
        self.hands, self.block, self.workers, self.force = hands, block, workers, force
        self.start: tuple[int, float] | None = None
        self.settled = force

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        if self.settled or done >= total:
            self.settled = True
            return
        if self.start is None:
            if done >= self.workers:
                self.start = (done, elapsed)
            return
        units, seconds = done - self.start[0], elapsed - self.start[1]
        if seconds < PACE_SECONDS and (units < PACE_UNITS or seconds < 0.2) or units < 1:
            return
        self.settled = True
        left = (total - done) * seconds / units
        if left > MAX_HOURS * 3600:
            rate = units * 2 * self.block / seconds
            took = f"{left / 3600:,.0f} h" if left >= 360000 else human_seconds(left)
            raise CfrlabError(
                f"--hands {self.hands:,} would take about {took} at the pace "
                f"measured ({rate:,.0f} hands/s), more than the {MAX_HOURS:g} h allowed without "
                f"--force; give fewer --hands, or --force to run anyway")


def run_lbr(target: str, game: str | None = None, abstraction: str | None = None,
            hands: int = 10000, seed: int = 0, call_rounds: int | None = None, workers: int = 1,
            exact: bool = False, as_json: bool = False, quiet: bool = False,
            actions: str | None = None, force: bool = False) -> dict:
    """Local best response to a strategy file or a bot; prints the result (and a JSON line with
    ``as_json``) and returns the summary dict. ``call_rounds`` None: the default of the game's
    betting (0 in limit games, 2 in no-limit); ``actions``: the no-limit responder's raise sizes;
    ``force``: run even when the pace says it takes more than ``MAX_HOURS`` (``PaceCheck``)."""
    from cfrlab.realgame.lbr import MAX_HANDS, local_best_response

    if not exact and hands <= 0:
        raise CfrlabError(f"--hands must be positive, got {hands}")
    if not exact and hands > MAX_HANDS:
        raise CfrlabError(f"--hands must be at most {MAX_HANDS:,}, got {hands:,}")
    check_workers(workers)
    g, opponent = strategy_or_bot(target, game, abstraction, parallel=workers > 1)
    if actions is not None:
        if g.is_limit:
            raise CfrlabError(f"--actions: {g.name or 'this game'} is a limit game (its responder "
                              "folds, calls or raises); --actions chooses no-limit raise sizes")
        from cfrlab.realgame.lbr_nolimit import responder_actions

        try:
            responder_actions(actions, g)
        except CfrlabError as e:
            raise CfrlabError(f"--actions: {e}") from None
    last = [0.0]
    block = 100
    pace = PaceCheck(hands, block, workers, force)
    total_hands = 2 * ((hands + 1) // 2)
    played = [0]
    open_line = [False]  # a progress line without its line end on stderr

    def progress(done, total, elapsed, eta):
        played[0] = min(done * block * 2, total_hands)
        if exact:
            return
        pace(done, total, elapsed)
        if quiet or not pace.settled or not done:  # no line before the pace is known
            return
        now = time.perf_counter()
        if done < total and now - last[0] < 2.0:
            return
        last[0] = now
        open_line[0] = done < total
        print(f"\rhands played {played[0]:,}/{total_hands:,}  elapsed {human_seconds(elapsed)}  "
              f"left {human_seconds(eta)}   ", end="" if done < total else "\n", file=sys.stderr,
              flush=True)

    try:
        r = local_best_response(opponent, g, hands=hands, seed=seed, call_rounds=call_rounds,
                                exact=exact, workers=workers, progress=progress, block=block,
                                actions=actions)
    except KeyboardInterrupt:
        if open_line[0]:
            print(file=sys.stderr)
        done = "" if exact else f" ({played[0]:,} of {total_hands:,} hands played; nothing is kept)"
        print(f"cfrlab: interrupted{done}", file=sys.stderr, flush=True)
        raise SystemExit(130) from None
    u = r.unit
    f = r.factor
    how = "exact expectation" if exact else f"{r.hands:,} hands ({r.deals:,} duplicate deals)"
    calls = f", calling through the first {r.call_rounds} round(s)" if r.call_rounds else ""
    if not g.is_limit:
        calls += f", responder actions {r.actions}"
    if exact:
        print(f"local best response: {r.value_unit:.6g} {u} (seat 0 {r.seat_values[0] * f:.6g}, "
              f"seat 1 {r.seat_values[1] * f:.6g}); {how}{calls}")
    else:
        print(f"local best response: {r.value_unit:.6g} ± {r.ci95_unit:.3g} {u} (95% CI); "
              f"seat 0 {r.seat_values[0] * f:.6g} ± {r.seat_ci95[0] * f:.3g}, seat 1 "
              f"{r.seat_values[1] * f:.6g} ± {r.seat_ci95[1] * f:.3g}; {how}{calls}; "
              f"{human_seconds(r.seconds)}, {r.hands_per_second * 60:,.0f} hands/min")
    exactly = " (cfrlab exploit --real gives it exactly)" if g.is_limit else ""
    print(f"a lower bound on the real-game exploitability{exactly}")
    summary = {"target": target, **r.to_dict(), "seed": seed}
    return json_summary(summary, as_json)


def register(app: typer.Typer) -> None:
    @app.command("lbr")
    def lbr(
        target: TargetArg, game: BotGameOpt = None, abstraction: SolvedInOpt = None,
        hands: Annotated[int, typer.Option("--hands", metavar="N", help=(
            "hands (games) to play: N/2 deals (rounded up), each played once in each seat "
            "(cfrlab match -n counts deals: -n N --duplicate plays 2N games)"))] = 10000,
        seed: Annotated[int, typer.Option("--seed", help="seed of the deals")] = 0,
        call_rounds: Annotated[int | None, typer.Option(
            "--call-rounds", help="check/call through the first K betting rounds "
            "[default: 0 in limit games, 2 in no-limit (the paper's)]", show_default=False)] = None,
        actions: Annotated[str | None, typer.Option(
            "--actions", help="no-limit only: the responder's raises as a bet spec: fcpa (fold, "
            "call, pot, all-in; the default, the paper's), fc (fold/call only), 0.5p,p,a ...",
            show_default=False)] = None,
        workers: WorkersOpt = 1,
        exact: Annotated[bool, typer.Option(
            "--exact", help="the exact expectation over every deal (small games only)")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
        force: Annotated[bool, typer.Option("--force", help=(
            f"run even when the pace of the first units says the run takes more than "
            f"{MAX_HOURS:g} h (otherwise refused a second or so in)"))] = False,
    ) -> None:
        """Local best response (Lisý and Bowling, "Equilibrium approximation quality of current
        no-limit poker bots"), for limit and no-limit games: plays duplicate hands against the
        strategy or agent, tracks its range by Bayes' rule, and takes the action that is best
        if both players check/call to the end. Its winnings, with a 95% confidence interval,
        are a lower bound on the real-game exploitability. Any agent: a strategy file, a bot, or
        your own py:FILE.py:Class (read through act(view), or action_probabilities(view) if it
        randomizes, asked for every hand in turn: quick in Kuhn and Leduc, slow in hold'em)."""
        run_lbr(target, game, abstraction, hands, seed, call_rounds, workers, exact, as_json,
                actions=actions, force=force)
