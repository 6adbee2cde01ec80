"""NumPy's financial functions (``pv``, ``pmt``, ``ppmt``, ``npv``, ``mirr``, ``rate``), which
MXNet 1.9.1 ran through NumPy 1.x and which NumPy 2 dropped: the closed forms NumPy 1.x
documented, on NumPy arrays (``mxnet.numpy.fallback`` runs them on host copies).

With ``r`` the rate per period, ``n`` the number of periods and ``w`` 1 when payments fall at
the beginning of a period (``when='begin'``) or 0 at its end, the loan equation is

    fv + pv * (1 + r) ** n + pmt * (1 + r * w) * ((1 + r) ** n - 1) / r = 0

(``pmt * n`` in place of the last term when ``r == 0``)."""
import numpy as onp

__all__ = ["pv", "pmt", "ppmt", "npv", "mirr", "rate"]

_WHEN = {"begin": 1, "end": 0, "start": 1, "finish": 0}


def _when(when):
    if isinstance(when, onp.ndarray):
        return when
    return _WHEN.get(when, when) if isinstance(when, str) else when


def _annuity_factor(rate, nper, when):
    rate, nper, when = onp.asarray(rate, dtype=float), onp.asarray(nper, dtype=float), _when(when)
    safe = onp.where(rate == 0, 1.0, rate)
    factor = onp.where(rate == 0, nper, (1 + safe * when) * ((1 + safe) ** nper - 1) / safe)
    return (1 + rate) ** nper, factor


def _fv(rate, nper, pmt, pv, when="end"):
    growth, factor = _annuity_factor(rate, nper, when)
    return -(pv * growth + pmt * factor)


def pv(rate, nper, pmt, fv=0, when="end"):
    """The present value solving the loan equation."""
    growth, factor = _annuity_factor(rate, nper, when)
    return -(fv + pmt * factor) / growth


def pmt(rate, nper, pv, fv=0, when="end"):
    """The payment per period (principal and interest) solving the loan equation."""
    growth, factor = _annuity_factor(rate, nper, when)
    return -(fv + pv * growth) / factor


def _ipmt(rate, per, nper, pv, fv=0, when="end"):
    when = _when(when)
    total = pmt(rate, nper, pv, fv, when)
    interest = _fv(rate, onp.asarray(per) - 1, total, pv, when) * rate
    # payments at the beginning: the first period pays no interest, the others a period earlier
    return onp.where(onp.asarray(when) == 1, onp.where(onp.asarray(per) == 1, 0.0, interest / (1 + rate)), interest)


def ppmt(rate, per, nper, pv, fv=0, when="end"):
    """The principal part of the payment of period ``per`` (1-based)."""
    return pmt(rate, nper, pv, fv, when) - _ipmt(rate, per, nper, pv, fv, when)


def npv(rate, values):
    """The net present value of the cash flows ``values`` (the first at time 0)."""
    values = onp.asarray(values, dtype=float)
    return (values / (1 + rate) ** onp.arange(0, len(values))).sum(axis=0)


def mirr(values, finance_rate, reinvest_rate):
    """The modified internal rate of return of the cash flows ``values`` (nan without both a
    positive and a negative flow)."""
    values = onp.asarray(values, dtype=float)
    count = values.size
    positive, negative = values > 0, values < 0
    if not (positive.any() and negative.any()):
        return onp.nan
    gains = abs(npv(reinvest_rate, values * positive))
    costs = abs(npv(finance_rate, values * negative))
    return (gains / costs) ** (1.0 / (count - 1)) * (1 + reinvest_rate) - 1


def rate(nper, pmt, pv, fv, when="end", guess=None, tol=None, maxiter=100):  # noqa: A002 -- NumPy's names
    """The rate per period solving the loan equation, by Newton's iteration from ``guess``
    (0.1) to ``tol`` (1e-6) in ``maxiter`` steps (nan when it does not converge)."""
    when = _when(when)
    guess, tol = (0.1 if guess is None else guess), (1e-6 if tol is None else tol)
    nper, pmt, pv, fv = (onp.asarray(v, dtype=float) for v in (nper, pmt, pv, fv))
    current = onp.asarray(guess, dtype=float)
    for _ in range(maxiter):
        t1 = (current + 1) ** nper
        t2 = (current + 1) ** (nper - 1)
        g = fv + t1 * pv + pmt * (t1 - 1) * (current * when + 1) / current
        gp = (nper * t2 * pv - pmt * (t1 - 1) * (current * when + 1) / current ** 2
              + nper * pmt * t2 * (current * when + 1) / current + pmt * (t1 - 1) * when / current)
        step = g / gp
        current = current - step
        if onp.all(onp.abs(step) < tol):
            return current
    return onp.nan + current * 0
