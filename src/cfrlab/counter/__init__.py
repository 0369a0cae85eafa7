"""Counter-strategies: opponent models from hand histories, frequentist best response,
restricted Nash response (RNR) and data-biased response (DBR)."""
