"""``cfrlab abstract build|info|sizes``: card abstractions of hold'em-style games."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from cfrlab.cli.common import available_memory, check_output, command_group, writing
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game


def _progress(quiet: bool):
    t0 = time.perf_counter()

    def say(msg: str) -> None:
        if not quiet:
            print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", file=sys.stderr, flush=True)
    return say


def register(app: typer.Typer) -> None:
    ab = command_group(app, "abstract", "Card abstraction (bucketing) for hold'em-style games.")

    @ab.command("build")
    def build(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in name or .game file")],
        out: Annotated[Path, typer.Option("--out", "-o", metavar="FILE", help="abstraction file to write (.npz)")],
        buckets: Annotated[str, typer.Option(metavar="B", help="buckets per round: 5, or 8-8-8-8")] = "5",
        metric: Annotated[str, typer.Option(metavar="METRIC", help="ehs2 (E[HS^2]) or ehs (E[HS])")] = "ehs2",
        nested: Annotated[str | None, typer.Option(
            metavar="NxM", help="N E[HS^2] sets each split in M by E[HS] (overrides --buckets)")] = None,
        method: Annotated[str, typer.Option(metavar="METHOD", help="percentile or uniform")] = "percentile",
        history: Annotated[bool, typer.Option(
            "--history/--no-history", help="buckets formed within each previous bucket sequence")
        ] = True,
        recall: Annotated[str, typer.Option(metavar="RECALL", help="perfect or imperfect")] = "perfect",
        kind: Annotated[str, typer.Option(metavar="KIND", help=(
            "percentile (the --metric/--method buckets), kmeans (k-means on hand-strength "
            "histograms, earth mover's distance, every round), ochs (kmeans, OCHS on the last "
            "round) or potential (OCHS on the last round, each earlier round on histograms over "
            "the next round's buckets); all three are imperfect recall"))] = "percentile",
        seed: Annotated[int, typer.Option(help="kmeans/ochs/potential: seed of the k-means++ draws")] = 0,
        bins: Annotated[int, typer.Option(
            help="kmeans/ochs/potential: hand-strength histogram bins")] = 50,
        opp_clusters: Annotated[int, typer.Option(
            "--opp-clusters", help="ochs/potential: clusters of opponent preflop hands")] = 8,
        force: Annotated[bool, typer.Option(
            help="overwrite an existing file; build even above the memory estimate")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines on stderr")] = False,
    ) -> None:
        """Build an abstraction: metric tables (cached), buckets, exact joint tables."""
        from cfrlab.abstraction.bucketed import BucketedModel
        from cfrlab.abstraction.buckets import BucketSpec
        from cfrlab.abstraction.sizes import check_build

        if out.exists() and not force and not out.is_dir():
            raise CfrlabError(f"{out} exists (use --force to overwrite)")
        check_output(out, "abstraction")  # before minutes of building, not after
        g = load_game(game)
        if kind not in ("percentile", "kmeans", "ochs", "potential"):
            raise CfrlabError(f"--kind is percentile, kmeans, ochs or potential, got {kind!r}")
        if kind != "percentile":
            spec = BucketSpec.kmeans(g.num_rounds, buckets, "emd" if kind == "kmeans" else "ochs",
                                     seed, bins, opp_clusters,
                                     "pa" if kind == "potential" else "emd")
        else:
            if recall == "imperfect" and history:
                history = False
            spec = BucketSpec.make(g.num_rounds, buckets, metric, nested, method, history, recall)
        est = check_build(g, spec, available_memory(), force)  # before minutes of building
        say = _progress(quiet)
        say(f"{g.name or game}: {spec.label()}; states per round {list(spec.num_states)}; "
            f"memory estimate {est['peak'] / 2**20:,.1f} MB ({est['phase']}), "
            f"file about {est['file'] / 2**20:,.1f} MB")
        model = BucketedModel.build(g, spec, progress=say)
        with writing(out, "abstraction"):
            model.save(out)
        say(f"wrote {out} (hash {model.hash[:16]})")

    @ab.command("info")
    def info(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="abstraction file")],
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
    ) -> None:
        """Rounds, buckets, bucket masses, sizes and hash of an abstraction file."""
        from cfrlab.abstraction.bucketed import BucketedModel
        from cfrlab.abstraction.sizes import sizes

        model = BucketedModel.load(file)
        summary = model.summary()
        try:
            sz = sizes(model.game, list(model.spec.counts), model.spec.recall)
            summary.update({k: sz[k] for k in ("infosets", "states", "game_infosets",
                                               "game_states", "canonical_counts")})
        except CfrlabError:
            pass
        masses = [m.tolist() for m in model.masses]
        if as_json:
            print(json.dumps({**summary, "masses": masses}))
            return
        c = Console()
        for k, v in summary.items():
            c.print(f"[bold]{k}[/]: {_fmt(v)}")
        t = Table(title="state masses by round (min / mean / max)", title_justify="left")
        for col in ("round", "states", "min", "mean", "max", "empty"):
            t.add_column(col, justify="right")
        for r, m in enumerate(model.masses):
            t.add_row(str(r), f"{len(m):,}", f"{m.min():.3g}", f"{m.mean():.3g}",
                      f"{m.max():.3g}", str(int((m == 0).sum())))
        c.print(t)
        if len(model.masses[0]) <= 20:
            c.print("round 0 masses: " + " ".join(f"{x:.4f}" for x in model.masses[0]))

    @ab.command("sizes")
    def sizes_cmd(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in name or .game file")],
        buckets: Annotated[list[str] | None, typer.Option(
            metavar="B", help="buckets per round: 10, or 8-8-8-8; repeat for several abstractions")] = None,
        recall: Annotated[str, typer.Option(metavar="RECALL", help="perfect or imperfect")] = "perfect",
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object per line, one per --buckets")] = False,
        bets: Annotated[str | None, typer.Option(
            "--bets", metavar="SPEC", help="no-limit betting abstraction (fc, fcpa, default, '0.5p,p,a/p,a;cap=3')")] = None,
    ) -> None:
        """Betting-tree nodes, canonical counts, information sets, game states and the memory
        a solve needs, by formula (builds nothing). Games other than hold'em-style ones get
        their betting tree's figures."""
        from cfrlab.abstraction.buckets import parse_counts
        from cfrlab.abstraction.metrics import check_holdem_style
        from cfrlab.abstraction.sizes import betting_sizes, sizes

        g = load_game(game)
        try:
            check_holdem_style(g)
        except CfrlabError:
            if buckets:
                raise
            results = [betting_sizes(g, bets)]
        else:
            # every --buckets is checked before anything is printed
            all_counts = [parse_counts(b, g.num_rounds) for b in buckets] if buckets else [None]
            results = [sizes(g, counts, recall, bets) for counts in all_counts]
        if as_json:
            for sz in results:
                print(json.dumps(sz))
            return
        c = Console()
        same = [key for key in results[0] if all(r.get(key) == results[0][key] for r in results)]
        for key in same if len(results) > 1 else []:  # the game's own figures, once
            c.print(f"[bold]{key}[/]: {_fmt(results[0][key])}")
        for k, sz in enumerate(results):
            if len(results) > 1:
                c.print(f"\n[bold underline]--buckets {buckets[k]}[/]")
            for key, v in sz.items():
                if len(results) == 1 or key not in same:
                    c.print(f"[bold]{key}[/]: {_fmt(v)}{_bytes_note(key, v)}")
        if "canonical_counts" not in results[0]:
            return
        c.print("[dim]states count every betting-tree node with one deal node at the root and "
                "two at each later round (the convention of Zinkevich et al. 2007, whose 5-bucket "
                "HULHE abstraction has 6.45e9 such states)[/]")


def _bytes_note(key: str, v) -> str:
    return f" ({v / 2**30:,.2f} GB)" if key.endswith("_bytes") and isinstance(v, int) and v >= 2**27 else ""


def _fmt(v) -> str:
    if isinstance(v, int) and v >= 10**7:
        return f"{v:,} ({v:.3e})"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)
