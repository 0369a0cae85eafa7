"""Exchange with other toolkits: OpenSpiel tabular policies for Kuhn and Leduc."""

from cfrlab.interop.openspiel import (  # noqa: F401
    OPENSPIEL_GAMES,
    export_openspiel,
    from_openspiel,
    import_openspiel,
    load_openspiel_json,
    openspiel_game_name,
    save_openspiel_json,
    to_openspiel,
)
