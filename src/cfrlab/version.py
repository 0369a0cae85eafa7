"""cfrlab's version: one place, read by the package and written into file headers."""

__version__ = "0.1.0"
