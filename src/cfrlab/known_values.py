"""Known values from the literature, each with its source. Tests assert against these."""

from fractions import Fraction

# Kuhn poker: first player's game value (Kuhn 1950; OpenSpiel cfr_test, postflop-solver).
KUHN_GAME_VALUE = -1.0 / 18.0
# Exploitability (NashConv / 2) of the uniform random policy. OpenSpiel exploitability_test
# gives NashConv 11/12 (Kuhn) and 4.747222222222222 (Leduc).
KUHN_UNIFORM_EXPLOITABILITY = float(Fraction(11, 24))
LEDUC_UNIFORM_EXPLOITABILITY = 4.747222222222222 / 2.0
# Leduc: first player's value, OpenSpiel sequence_form_lp_test.
LEDUC_GAME_VALUE = -0.085606424078
LEDUC_INFOSETS = 936

# Seven-card hand categories over all C(52,7) hands.
SEVEN_CARD_TOTAL = 133_784_560
SEVEN_CARD_COUNTS = {
    "straight_flush": 41_584,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "one_pair": 58_627_800,
    "high_card": 23_294_460,
}
# Five-card hand categories over all C(52,5) hands (standard combinatorics).
FIVE_CARD_TOTAL = 2_598_960
FIVE_CARD_COUNTS = {
    "straight_flush": 40,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "one_pair": 1_098_240,
    "high_card": 1_302_540,
}

# HULHE (ACPC limit, reverse blinds) public betting tree.
HULHE_DECISION_NODES = 6_378
HULHE_DECISION_NODES_BY_ROUND = (8, 70, 630, 5_670)
# Hand isomorphism: canonical (hole | board) classes per round, full deck (Waugh 2013).
HOLDEM_CANONICAL_COUNTS = (169, 1_286_792, 13_960_050, 123_156_254)
# Zinkevich et al. 2007: abstract game sizes with B buckets per round.
ZINKEVICH_INFOSETS_B10 = 5.73e7
ZINKEVICH_STATES_B10 = 1.65e12
ZINKEVICH_STATES_B5 = 6.45e9
# Full HULHE.
HULHE_GAME_STATES = 9.17e17
HULHE_GAME_INFOSETS = 3.19e14
