// np.random.default_rng(seed) and its Generator methods inside compiled code. Every
// method consumes the same 64/32-bit PCG64 words in the same order as NumPy's
// numpy/random (distributions.c, _bounded_integers.pyx, _generator.pyx), so a seed
// gives NumPy's stream bit for bit (docs/semantics.md, "Random numbers").
#pragma once

#include "random_core.hpp"    // SeedSequence, PCG64, Generator, default_rng, random
#include "random_ints.hpp"    // integers (Lemire's bounded draws)
#include "random_dist.hpp"    // standard_normal/normal, standard_exponential/exponential, uniform
#include "random_discrete.hpp"  // binomial, poisson
#include "random_sample.hpp"  // choice, permutation, shuffle
