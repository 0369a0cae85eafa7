"""Run the CLI in-process: (exit code, stdout, stderr)."""

from cfrlab.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, *words: str) -> str:
    """The CLI's refusal: non-zero, one line ``cfrlab: error: ...`` holding ``words``, no
    traceback or rich panel."""
    assert code != 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfrlab: error: "), err
    assert "Traceback" not in err and "╭" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]
