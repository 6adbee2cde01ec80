"""Native iterators declare their parameters with the schema operators use (mxtorch.schema):
one parser, one error format, defaults declared once."""
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.io import image_record, native
from mxtorch.schema import collect


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "data.csv"
    np.savetxt(path, np.arange(12, dtype=np.float32).reshape(4, 3), delimiter=",")
    return str(path)


def test_bad_iterator_values_name_iterator_argument_and_value(csv_file):
    with pytest.raises(mx.MXNetError, match=r"CSVIter: argument 'batch_size': expected a value of at least 1, "
                                            r"got 0 \(given 0\)"):
        mx.io.CSVIter(data_csv=csv_file, data_shape=(3,), batch_size=0)
    with pytest.raises(mx.MXNetError, match=r"CSVIter: argument 'round_batch'.*'maybe'"):
        mx.io.CSVIter(data_csv=csv_file, data_shape=(3,), batch_size=2, round_batch="maybe")
    with pytest.raises(mx.MXNetError, match=r"ImageRecordIter: argument 'inter_method': expected one of "
                                            r"\[0, 1, 2, 3, 4, 9, 10\]"):
        mx.io.ImageRecordIter(path_imgrec="x.rec", data_shape=(3, 8, 8), batch_size=1, inter_method=7)
    with pytest.raises(mx.MXNetError, match=r"ImageRecordIter: argument 'batch_size' is required"):
        mx.io.ImageRecordIter(path_imgrec="x.rec", data_shape=(3, 8, 8))


def test_iterators_and_operators_share_the_parsers(csv_file):
    # the same value refused by the same parser gives the same explanation in both layers
    with pytest.raises(mx.MXNetError) as operator_error:
        mx.sym.FullyConnected(mx.sym.var("a"), num_hidden="2.5")
    with pytest.raises(mx.MXNetError) as iterator_error:
        mx.io.MNISTIter(image="none", label="none", seed="2.5")
    assert "expected an integer, got '2.5' (given '2.5')" in str(operator_error.value)
    assert "MNISTIter: argument 'seed': expected an integer, got '2.5' (given '2.5')" in str(iterator_error.value)


def test_string_forms_are_parsed_as_mxnet_passes_them(csv_file):
    iterator = mx.io.CSVIter(data_csv=csv_file, data_shape="(3,)", batch_size="2", round_batch="False")
    batches = [batch.data[0].asnumpy() for batch in iterator]
    np.testing.assert_array_equal(np.concatenate(batches), np.arange(12, dtype=np.float32).reshape(4, 3))


def test_unknown_iterator_arguments_are_ignored_with_one_warning(csv_file):
    with pytest.warns(UserWarning, match=r"CSVIter: ignoring unknown arguments \['batchsize'\]") as caught:
        mx.io.CSVIter(data_csv=csv_file, data_shape=(3,), batch_size=2, batchsize=3)
    assert len(caught) == 1 and caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # the compatibility arguments give no warning
        mx.io.CSVIter(data_csv=csv_file, data_shape=(3,), batch_size=2, prefetch_buffer=4, ctx="cpu",
                      data_name="x", label_name="y")


def test_declared_defaults_are_mxnets():
    # MXNet 1.9.1's documented defaults (python/mxnet/io/io.py docstrings of the C++ iterators)
    csv = {k: a.default for k, a in collect(native.CSVIterArguments).items()}
    assert csv["label_shape"] == (1,) and csv["round_batch"] is True and csv["label_csv"] is None
    mnist = {k: a.default for k, a in collect(native.MNISTIterArguments).items()}
    assert (mnist["batch_size"], mnist["shuffle"], mnist["flat"], mnist["seed"]) == (128, True, False, 0)
    image = {k: a.default for k, a in collect(image_record.ImageRecordArguments).items()}
    assert (image["preprocess_threads"], image["fill_value"], image["inter_method"], image["resize"]) == (4, 255, 1, -1)
    raw = collect(image_record.RawImageRecordArguments)
    assert "mean_r" not in raw and "rand_crop" in raw
    det = {k: a.default for k, a in collect(image_record.DetRecordArguments).items()}
    assert (det["fill_value"], det["label_pad_value"], det["aug_seq"]) == (127, -1.0, "det_aug_default")
