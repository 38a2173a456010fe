"""The base layer: the vocabulary every stage imports downward (errors, settings, the type lattice,
annotation evaluation, ISA tables). It imports no stage and not the public face."""
