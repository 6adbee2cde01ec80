"""``CompositeEvalMetric``: several metrics updated together."""
from __future__ import annotations

from collections import OrderedDict

from ..base import MXNetError, numeric_types, string_types
from .base import EvalMetric
from .registry import register, alias, create, wraps_specs

__all__ = ["CompositeEvalMetric"]


@register
@alias("composite")
@wraps_specs("list")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns ``([names], [values])``.

    ``metrics``: a list of anything ``create`` accepts.  ``update_dict``
    first keeps the entries named in this metric's ``label_names`` /
    ``output_names``, then lets each child select its own.
    """

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(metric) for metric in (metrics or [])]

    def add(self, metric):
        """Append a child metric (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``; MXNetError when out of range."""
        try:
            return self.metrics[index]
        except IndexError:
            raise MXNetError(f"CompositeEvalMetric.get_metric: index {index} is out of range "
                             f"[0, {len(self.metrics)})") from None

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict(item for item in labels.items() if item[0] in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict(item for item in preds.items() if item[0] in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, "metrics", []):
            metric.reset_local()

    def _collect(self, method):
        names, values = [], []
        for metric in self.metrics:
            name, value = getattr(metric, method)()
            if isinstance(name, string_types):
                name = [name]
            if isinstance(value, numeric_types):
                value = [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")

    def get_config(self):
        config = super().get_config()
        config.update({"metrics": [metric.get_config() for metric in self.metrics]})
        return config
