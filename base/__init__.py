"""The base layer: the vocabulary every stage imports downward (errors, settings, the type lattice,
annotation evaluation, ISA tables). It imports no stage and not the public face."""

__version__ = "0.1.0"  # the package version (pyproject.toml says the same; bundles record it)
