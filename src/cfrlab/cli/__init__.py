"""The typer command-line interface. Each command group lives in its own module."""
