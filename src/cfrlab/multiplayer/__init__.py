"""N-player limit poker: public tree, CFR family, exact NashConv, strategy files, OpenSpiel."""
