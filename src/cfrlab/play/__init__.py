"""Playing against people and other programs: the ACPC network client and dealer, seeded
deals, and human play in the terminal and the browser.

Modules: ``deal`` (seeded deals shared with the match engine), ``protocol`` (line IO and
formats), ``dealer``, ``client``, ``session`` (one human-vs-agent table, shared by the two
front ends), ``terminal``, ``web`` (FastAPI; needs the ``web`` extra).
"""

from cfrlab.play.deal import deal_for_hand  # noqa: F401
