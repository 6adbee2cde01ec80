"""mx.metric against MXNet 1.9.1: the shared fixtures (tests/data/metric/index.json) plus behaviour checks
whose expected values are computed here independently (numpy / scikit-learn formulas)."""
import json
import math
import os
from collections import OrderedDict

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "metric")
with open(os.path.join(DATA, "index.json")) as _stream:
    INDEX = json.load(_stream)

RTOL, ATOL = 1e-5, 1e-7


def _metric_from_spec(spec):
    if spec["metric"] == "composite":
        metric = mx.metric.CompositeEvalMetric()
        for child in spec["children"]:
            metric.add(mx.metric.create(child["metric"], **child["kwargs"]))
        return metric
    return mx.metric.create(spec["metric"], **spec["kwargs"])


def _arrays(arrays, keys, dtypes):
    return [mx.nd.array(arrays[key], dtype=dtype) for key, dtype in zip(keys, dtypes)]


@pytest.mark.parametrize("case", INDEX["cases"], ids=lambda case: case["name"])
def test_metric_fixture(case):
    arrays = np.load(os.path.join(DATA, case["file"]))
    metric = _metric_from_spec(case["spec"])
    assert metric.name == case["metric_name"]
    for batch, expected in zip(case["batches"], case["get_after_each_batch"]):
        metric.update(_arrays(arrays, batch["labels"], batch["label_dtypes"]),
                      _arrays(arrays, batch["preds"], batch["pred_dtypes"]))
        name, value = metric.get()
        assert name == expected["name"]
        np.testing.assert_allclose(value, expected["value"], rtol=RTOL, atol=ATOL)
        if expected["num_inst"] is not None:
            assert metric.num_inst == expected["num_inst"]
    final = metric.get_name_value()
    assert [pair[0] for pair in final] == [pair[0] for pair in case["get_name_value"]]
    np.testing.assert_allclose([pair[1] for pair in final], [pair[1] for pair in case["get_name_value"]],
                               rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", [c for c in INDEX["cases"] if c["spec"]["metric"] != "composite"][:6],
                         ids=lambda case: case["name"])
def test_metric_fixture_with_numpy_inputs(case):
    arrays = np.load(os.path.join(DATA, case["file"]))
    metric = _metric_from_spec(case["spec"])
    for batch in case["batches"]:
        metric.update([arrays[key].astype(dtype) for key, dtype in zip(batch["labels"], batch["label_dtypes"])],
                      [arrays[key].astype(dtype) for key, dtype in zip(batch["preds"], batch["pred_dtypes"])])
    np.testing.assert_allclose(metric.get()[1], case["get_name_value"][0][1], rtol=RTOL, atol=ATOL)


# -- global statistics, reset, update_dict ---------------------------------------------------------

def test_reset_local_keeps_global_statistics():
    metric = mx.metric.create("acc")
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[1, 0], [1, 0]])])  # 1 of 2 right
    metric.reset_local()
    assert math.isnan(metric.get()[1]) and metric.num_inst == 0
    metric.update([mx.nd.array([1, 1])], [mx.nd.array([[0, 1], [0, 1]])])  # 2 of 2 right
    assert metric.get() == ("accuracy", 1.0)
    assert metric.get_global() == ("accuracy", 0.75)
    assert metric.get_global_name_value() == [("accuracy", 0.75)]
    assert (metric.global_num_inst, metric.global_sum_metric) == (4, 3)
    metric.reset()
    assert math.isnan(metric.get_global()[1])
    assert str(metric) == "EvalMetric: {'accuracy': nan}"


def test_metric_without_global_statistics_reports_local_values():
    class Count(mx.metric.EvalMetric):
        def __init__(self):
            super().__init__("count")

        def update(self, labels, preds):
            self.sum_metric += len(labels)
            self.num_inst += 1

    metric = Count()
    metric.update([1, 2, 3], [1, 2, 3])
    metric.update([1], [1])
    assert metric.get() == ("count", 2.0) and metric.get_global() == ("count", 2.0)
    assert metric.get_config() == {"metric": "Count", "name": "count", "output_names": None, "label_names": None}


def test_update_dict_selects_names_and_composite_filters():
    metric = mx.metric.Accuracy(output_names=["out_b"], label_names=["lab_b"])
    labels = OrderedDict([("lab_a", mx.nd.array([0, 0])), ("lab_b", mx.nd.array([1, 1]))])
    preds = OrderedDict([("out_a", mx.nd.array([[1, 0], [1, 0]])), ("out_b", mx.nd.array([[0, 1], [1, 0]]))])
    metric.update_dict(labels, preds)
    assert metric.get() == ("accuracy", 0.5)
    with pytest.raises(MXNetError, match="out_c"):
        mx.metric.Accuracy(output_names=["out_c"]).update_dict(labels, preds)
    composite = mx.metric.CompositeEvalMetric(["acc", mx.metric.Loss(output_names=["out_a"])],
                                              output_names=["out_a"], label_names=["lab_a"])
    composite.update_dict(labels, preds)
    names, values = composite.get()
    assert names == ["accuracy", "loss"] and values == [1.0, 0.5]
    assert composite.get_metric(1).name == "loss"
    with pytest.raises(MXNetError, match="out of range"):
        composite.get_metric(5)
    composite.reset_local()
    assert all(math.isnan(value) for value in composite.get()[1])
    assert composite.get_global()[1] == [1.0, 0.5]


def test_composite_config():
    composite = mx.metric.create(["acc", "mse"])
    config = composite.get_config()
    assert config["metric"] == "CompositeEvalMetric"
    assert [child["metric"] for child in config["metrics"]] == ["Accuracy", "MSE"]
    assert config["metrics"][0]["axis"] == 1


# -- create / register ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, cls, metric_name", [
    ("acc", "Accuracy", "accuracy"), ("Accuracy", "Accuracy", "accuracy"), ("ce", "CrossEntropy", "cross-entropy"),
    ("crossentropy", "CrossEntropy", "cross-entropy"), ("nll_loss", "NegativeLogLikelihood", "nll-loss"),
    ("negativeloglikelihood", "NegativeLogLikelihood", "nll-loss"), ("f1", "F1", "f1"), ("mcc", "MCC", "mcc"),
    ("mae", "MAE", "mae"), ("mse", "MSE", "mse"), ("rmse", "RMSE", "rmse"), ("pearsonr", "PearsonCorrelation",
                                                                                 "pearsonr"),
    ("pearsoncorrelation", "PearsonCorrelation", "pearsonr"), ("loss", "Loss", "loss"), ("pcc", "PCC", "pcc"),
    ("torch", "Torch", "torch"), ("caffe", "Caffe", "caffe"), ("composite", "CompositeEvalMetric", "composite"),
])
def test_create_by_name(name, cls, metric_name):
    metric = mx.metric.create(name)
    assert type(metric).__name__ == cls and metric.name == metric_name


def test_create_other_forms():
    assert mx.metric.create("top_k_accuracy", top_k=3).name == "top_k_accuracy_3"
    assert mx.metric.create("top_k_acc", 4).name == "top_k_accuracy_4"
    assert mx.metric.create("perplexity", ignore_label=None).name == "perplexity"
    assert mx.metric.create('["acc", {"axis": 0}]').axis == 0
    assert mx.metric.create('{"metric": "mse", "name": "m"}').name == "m"
    assert mx.metric.create({"metric": "acc", "axis": 2}).axis == 2
    assert mx.metric.create(mx.metric.Accuracy).name == "accuracy"
    metric = mx.metric.MSE()
    assert mx.metric.create(metric) is metric
    with pytest.raises(MXNetError, match="already a metric instance"):
        mx.metric.create(metric, 1)
    composite = mx.metric.create(["acc", "f1"])
    assert isinstance(composite, mx.metric.CompositeEvalMetric) and composite.get()[0] == ["accuracy", "f1"]


def test_create_unknown_name_lists_valid_names():
    with pytest.raises(MXNetError) as error:
        mx.metric.create("accuracyy")
    message = str(error.value)
    assert "'accuracyy'" in message and "'acc'" in message and "'rmse'" in message and "'nll_loss'" in message


def test_register_and_alias():
    @mx.metric.register
    @mx.metric.alias("always_one_test_alias")
    class AlwaysOne(mx.metric.EvalMetric):
        def __init__(self, name="always-one"):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += 1
            self.num_inst += 1

    assert isinstance(mx.metric.create("alwaysone"), AlwaysOne)
    assert isinstance(mx.metric.create("Always_One_Test_Alias"), AlwaysOne)
    with pytest.raises(MXNetError, match="subclasses of EvalMetric"):
        mx.metric.register(int)


# -- custom metrics ---------------------------------------------------------------------------------

def test_custom_metric_from_function_and_np():
    def pairs(label, pred):
        assert isinstance(label, np.ndarray) and isinstance(pred, np.ndarray)
        return float(np.abs(label - pred).sum()), label.size

    metric = mx.metric.create(pairs)
    assert metric.name == "pairs"
    metric.update([mx.nd.array([1, 2])], [mx.nd.array([1, 4])])
    assert metric.get() == ("pairs", 1.0)
    lam = mx.metric.create(lambda label, pred: 0.5)
    assert lam.name == "custom(<lambda>)"
    lam.update([mx.nd.zeros(2), mx.nd.zeros(2)], [mx.nd.zeros(2), mx.nd.zeros(2)])
    assert lam.get() == ("custom(<lambda>)", 0.5) and lam.num_inst == 2
    numpy_metric = mx.metric.np(lambda label, pred: float((label == pred).mean()), name="eq")
    numpy_metric.update([np.array([1, 2, 3])], [np.array([1, 0, 3])])
    assert numpy_metric.name == "eq" and numpy_metric.get()[1] == pytest.approx(2 / 3)
    with pytest.raises(NotImplementedError):
        metric.get_config()


def test_custom_metric_extra_outputs():
    strict = mx.metric.CustomMetric(lambda label, pred: 1.0)
    with pytest.raises(MXNetError, match="does not match"):
        strict.update([mx.nd.zeros(1)], [mx.nd.zeros(1), mx.nd.zeros(1)])
    loose = mx.metric.CustomMetric(lambda label, pred: 1.0, allow_extra_outputs=True)
    loose.update([mx.nd.zeros(1)], [mx.nd.zeros(1), mx.nd.zeros(1)])
    assert loose.num_inst == 1


# -- errors -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["acc", "ce", "mse", "mae", "rmse", "f1", "mcc", "nll_loss", "pearsonr"])
def test_mismatched_numbers_of_labels_and_preds_raise(name):
    metric = mx.metric.create(name)
    with pytest.raises(MXNetError, match="does not match") as error:
        metric.update([mx.nd.zeros(2), mx.nd.zeros(2)], [mx.nd.zeros((2, 2))])
    assert isinstance(error.value, ValueError)  # what MXNet raised, for existing handlers


def test_check_label_shapes():
    labels, preds = mx.metric.check_label_shapes(mx.nd.zeros(3), mx.nd.zeros((3, 2)), wrap=True)
    assert len(labels) == 1 and len(preds) == 1
    mx.metric.check_label_shapes(np.zeros((2, 3)), np.zeros((2, 3)), shape=True)
    with pytest.raises(mx.metric.MetricShapeError, match=r"\(2, 3\).*\(3, 2\)"):
        mx.metric.check_label_shapes(np.zeros((2, 3)), np.zeros((3, 2)), shape=True)


def test_other_bad_inputs_raise():
    with pytest.raises(MXNetError, match="top_k"):
        mx.metric.TopKAccuracy(top_k=1)
    with pytest.raises(MXNetError, match="binary"):
        mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.zeros((3, 2))])
    with pytest.raises(MXNetError, match="3 labels for 2 predictions"):
        mx.metric.CrossEntropy().update([mx.nd.array([0, 1, 1])], [mx.nd.zeros((2, 2))])
    with pytest.raises(MXNetError, match=r"class indices in \[0, 2\)"):
        mx.metric.CrossEntropy().update([mx.nd.array([0, 5])], [mx.nd.zeros((2, 2))])
    with pytest.raises(MXNetError, match="shape mismatch"):
        mx.metric.Perplexity(None).update([mx.nd.array([0, 1, 1])], [mx.nd.zeros((2, 2))])
    with pytest.raises(MXNetError, match="axis 3"):
        mx.metric.Accuracy(axis=3).update([mx.nd.array([0, 1])], [mx.nd.zeros((2, 2))])
    with pytest.raises(MXNetError, match="do not broadcast"):
        mx.metric.MSE().update([mx.nd.zeros((2, 3))], [mx.nd.zeros((2, 4))])


# -- independent checks of the formulas -------------------------------------------------------------

def test_binary_metrics_match_scikit_learn_micro():
    from sklearn.metrics import f1_score, matthews_corrcoef
    rng = np.random.default_rng(0)
    labels = [rng.integers(0, 2, 20) for _ in range(3)]
    preds = [rng.random((20, 2)).astype(np.float32) for _ in range(3)]
    f1, mcc = mx.metric.F1(average="micro"), mx.metric.MCC(average="micro")
    for label, pred in zip(labels, preds):
        f1.update([mx.nd.array(label)], [mx.nd.array(pred)])
        mcc.update([mx.nd.array(label)], [mx.nd.array(pred)])
    all_labels = np.concatenate(labels)
    all_predicted = np.concatenate([pred.argmax(1) for pred in preds])
    assert f1.get()[1] == pytest.approx(f1_score(all_labels, all_predicted))
    assert mcc.get()[1] == pytest.approx(matthews_corrcoef(all_labels, all_predicted))
    assert f1.num_inst == 60
    assert f1.metrics.precision == pytest.approx(
        ((all_predicted == 1) & (all_labels == 1)).sum() / (all_predicted == 1).sum())


def test_pcc_matches_scikit_learn_multiclass():
    from sklearn.metrics import matthews_corrcoef
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 4, 50)
    preds = rng.random((50, 4))
    metric = mx.metric.create("pcc")
    metric.update([mx.nd.array(labels[:25])], [mx.nd.array(preds[:25])])
    metric.update([mx.nd.array(labels[25:])], [mx.nd.array(preds[25:])])
    assert metric.get()[1] == pytest.approx(matthews_corrcoef(labels, preds.argmax(1)))


def test_top_k_and_perplexity_formulas():
    pred = np.array([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1], [0.3, 0.1, 0.6]], np.float32)
    label = np.array([2, 2, 1])
    metric = mx.metric.TopKAccuracy(top_k=2)
    metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    assert metric.get()[1] == pytest.approx(1 / 3)  # only sample 0 has its label among the best two
    perplexity = mx.metric.Perplexity(ignore_label=2)
    perplexity.update([mx.nd.array(label)], [mx.nd.array(pred)])
    assert perplexity.get()[1] == pytest.approx(math.exp(-math.log(0.1)))  # samples 0, 1 ignored
    assert perplexity.num_inst == 1
    sequence = mx.metric.Perplexity(ignore_label=None)
    sequence.update([mx.nd.array([[0, 1]])], [mx.nd.array([[[0.5, 0.5], [0.25, 0.75]]])])  # (N, T, C)
    assert sequence.get()[1] == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.75)) / 2))


def test_regression_and_loss_formulas():
    label, pred = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 2.0])
    for name, expected in (("mae", 2.5 / 3), ("mse", 4.25 / 3), ("rmse", math.sqrt(4.25 / 3))):
        metric = mx.metric.create(name)
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
        metric.update([mx.nd.array(label)], [mx.nd.array(label)])
        assert metric.get()[1] == pytest.approx(expected / 2, rel=1e-6)  # mean of per-update values
        assert metric.num_inst == 2
    loss = mx.metric.Loss()
    loss.update(None, mx.nd.array([[1.0, 2.0], [3.0, 6.0]]))
    assert loss.get() == ("loss", 3.0) and loss.num_inst == 4


def test_accuracy_truncates_class_index_predictions():
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1, 2, 3])], [mx.nd.array([1.9, 2.2, -0.5])])
    assert metric.get()[1] == pytest.approx(2 / 3)


# -- no host copies during update ---------------------------------------------------------------------

@pytest.mark.parametrize("spec", [("acc", {}), ("top_k_accuracy", {"top_k": 2}), ("ce", {}), ("nll_loss", {}),
                                  ("mse", {}), ("mae", {}), ("rmse", {}), ("loss", {}),
                                  ("perplexity", {"ignore_label": 0}), ("pearsonr", {}),
                                  ("pearsonr", {"average": "micro"}), ("f1", {"average": "micro"}),
                                  ("mcc", {})])
def test_update_keeps_values_on_the_device(spec, monkeypatch):
    name, kwargs = spec
    metric = mx.metric.create(name, **kwargs)
    label = torch.tensor([0.0, 1.0, 1.0, 0.0])
    pred = torch.tensor([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.9, 0.1]])
    if name in ("mse", "mae", "rmse", "pearsonr"):
        pred = torch.tensor([0.1, 0.9, 0.7, 0.2])

    def forbidden(*args, **kwargs):
        raise AssertionError("update copied a value to the host")

    with monkeypatch.context() as patch:
        for method in ("item", "tolist", "numpy", "__float__", "__int__", "__bool__"):
            patch.setattr(torch.Tensor, method, forbidden)
        metric.update([label], [pred])
        metric.update([label], [pred])
    value = metric.get()[1]
    assert isinstance(value, float) and not math.isnan(value)
