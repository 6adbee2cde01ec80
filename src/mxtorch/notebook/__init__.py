"""``mx.notebook``: training callbacks for Jupyter notebooks (``mx.notebook.callback``).

``mx.notebook.bokeh`` is the bokeh package when it is installed, else the placeholder class
``Bokeh_Failed_To_Import``, as in MXNet 1.9.1 (bokeh is imported on first use of the name).
"""
from . import callback  # noqa: F401


class Bokeh_Failed_To_Import:  # noqa: N801 (MXNet's name)
    """What ``mx.notebook.bokeh`` is when bokeh cannot be imported (MXNet's placeholder)."""


def __getattr__(name):
    if name == "bokeh":
        from ..util import optional_module
        return optional_module(globals(), "bokeh", "bokeh", Bokeh_Failed_To_Import)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
