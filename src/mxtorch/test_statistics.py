"""Statistical checks of ``mx.test_utils`` (MXNet 1.9.1) for tests of random generators: the
``retry`` decorator, mean / variance checks, equal-probability buckets and the chi-square
goodness-of-fit tests ``chi_square_check`` / ``verify_generator`` (SciPy).
"""
from __future__ import annotations

import functools

import numpy as np

from .base import MXNetError

__all__ = ["retry", "mean_check", "var_check", "gen_buckets_probs_with_ppf", "chi_square_check",
           "verify_generator"]


def retry(n):
    """Decorator: run a (random) test up to ``n`` times until it passes."""
    if n < 1:
        raise MXNetError(f"retry: n must be positive, got {n}")

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return function(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


# -- checks of random generators --------------------------------------------------------------------
def mean_check(generator, mu, sigma, nsamples=1000000):
    """True when the mean of ``generator(nsamples)`` lies within mu +- 3 sigma / sqrt(n)."""
    samples = np.asarray(generator(nsamples), dtype=np.float64)
    bound = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - bound < samples.mean() < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """True when the variance of ``generator(nsamples)`` is within 3 standard errors of sigma**2."""
    samples = np.asarray(generator(nsamples), dtype=np.float64)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < samples.var() < sigma ** 2 + bound)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equal-probability buckets ``[(ppf(i/n), ppf((i+1)/n))]`` and their probabilities."""
    edges = [ppf(i / float(nbuckets)) for i in range(nbuckets + 1)]
    buckets = list(zip(edges[:-1], edges[1:]))
    return buckets, [1.0 / nbuckets] * nbuckets


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson chi-square test of ``generator(nsamples)`` against ``probs`` over ``buckets``
    (a list of ``(low, high)`` intervals, or of discrete values).  Returns
    ``(p_value, observed_counts, expected_counts)``."""
    from scipy import stats
    samples = np.asarray(generator(nsamples)).reshape(-1)
    if isinstance(buckets[0], (tuple, list)):
        observed = np.array([np.sum((samples >= low) & (samples < high)) for low, high in buckets], dtype=np.float64)
    else:
        observed = np.array([np.sum(samples == value) for value in buckets], dtype=np.float64)
    expected = np.asarray(probs, dtype=np.float64) * nsamples
    expected = expected * observed.sum() / expected.sum() if observed.sum() else expected
    _, p_value = stats.chisquare(f_obs=observed, f_exp=expected)
    return p_value, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Repeat :func:`chi_square_check` ``nrepeat`` times; assert that at least
    ``success_rate`` of the p-values exceed ``alpha``.  Returns the p-values."""
    p_values = [chi_square_check(generator, buckets, probs, nsamples)[0] for _ in range(nrepeat)]
    passed = sum(p > alpha for p in p_values)
    if passed < nrepeat * success_rate:
        raise AssertionError(f"verify_generator: only {passed} of {nrepeat} chi-square tests passed "
                             f"(p-values {p_values}, alpha {alpha})")
    return p_values
