"""``cfrlab experiment convergence``: Figure 1 of Zinkevich, Johanson, Bowling and Piccione,
"Regret Minimization in Games with Incomplete Information" (NIPS 2007), for HULHE bucket
abstractions: exploitability against iterations and against time."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import check_output, check_output_dir, command_group
from cfrlab.errors import CfrlabError


def register(app: typer.Typer) -> None:
    ex = command_group(app, "experiment", "Reproduce published experiments (Zinkevich et al. 2007, Figure 1).")

    @ex.command("convergence")
    def convergence(
        abstraction: Annotated[list[Path], typer.Option(
            "--abstraction", metavar="FILE", help="abstraction file (repeat for several bucket counts)")],
        checkpoint: Annotated[list[Path] | None, typer.Option(
            "--checkpoint", metavar="FILE", help="read the curve of a finished `cfrlab solve` run instead of "
                                                 "solving (one per --abstraction, same order)")] = None,
        algorithm: Annotated[str, typer.Option("--algorithm", "-a", metavar="ALG", help="CFR variant")] = "cfr+",
        seconds: Annotated[float, typer.Option("--seconds", metavar="S", help="budget per abstraction")] = 600.0,
        eval_every: Annotated[int, typer.Option("--eval-every", metavar="N",
                                                help="measure exploitability every N iterations")] = 25,
        out_dir: Annotated[Path, typer.Option("--out-dir", "-o", metavar="DIR",
                                              help="folder for the CSV, PNG and table")] = Path("out/convergence"),
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: the curves' summaries as JSON")] = False,
    ) -> None:
        """Exploitability vs iterations/infosets and vs seconds: CSV, PNG and a markdown table."""
        from cfrlab.experiments.convergence import (
            curve_from_checkpoint,
            plot,
            run_curve,
            table,
            write_csv,
        )

        if checkpoint and len(checkpoint) != len(abstraction):
            raise CfrlabError("give one --checkpoint per --abstraction")
        check_output_dir(out_dir, "convergence results")
        for name in ("convergence.csv", "convergence.png", "table.md"):
            check_output(out_dir / name, "convergence results")
        curves = []
        for k, ab in enumerate(abstraction):
            if checkpoint:
                curves.append(curve_from_checkpoint(checkpoint[k], ab))
            else:
                c = run_curve(ab, algorithm, seconds, eval_every,
                              log=lambda m: print(m, file=sys.stderr, flush=True))
                c.pop("solver")
                curves.append(c)
        write_csv(curves, out_dir / "convergence.csv")
        plot(curves, out_dir / "convergence.png")
        md = table(curves)
        (out_dir / "table.md").write_text(md + "\n")
        print(md)
        print(f"wrote {out_dir / 'convergence.csv'}, {out_dir / 'convergence.png'}, {out_dir / 'table.md'}")
        if as_json:
            print(json.dumps([{k: v for k, v in c.items() if k != "history"} | {"points": len(c["history"])}
                              for c in curves]))
