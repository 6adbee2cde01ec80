"""The vertical-slice acceptance program, verbatim in MXNet's API, on the bundled digits."""
import numpy as np

import mxtorch as mx
from mxtorch.datasets import digits_iterators


def test_issue_mlp_program_trains_scores_and_predicts():
    train_iter, val_iter = digits_iterators(batch_size=64, flat=True)
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, name="fc1", num_hidden=128)
    act1 = mx.sym.Activation(fc1, name="relu1", act_type="relu")
    fc2 = mx.sym.FullyConnected(act1, name="fc2", num_hidden=64)
    act2 = mx.sym.Activation(fc2, name="relu2", act_type="relu")
    fc3 = mx.sym.FullyConnected(act2, name="fc3", num_hidden=10)
    out = mx.sym.SoftmaxOutput(fc3, name="softmax")
    mod = mx.mod.Module(out)
    mod.fit(train_iter, eval_data=val_iter, optimizer="sgd", optimizer_params={"learning_rate": 0.1},
            eval_metric="acc", num_epoch=10, initializer=mx.init.Xavier())
    (name, accuracy), = mod.score(val_iter, ["acc"])
    assert name == "accuracy" and accuracy > 0.9
    predictions = mod.predict(val_iter)
    val_iter.reset()
    labels = np.concatenate([batch.label[0].asnumpy()[:batch.label[0].shape[0] - (batch.pad or 0)]
                             for batch in val_iter])
    assert predictions.shape == (len(labels), 10)
    np.testing.assert_allclose(predictions.asnumpy().sum(axis=1), 1, rtol=1e-5)
    assert np.mean(predictions.asnumpy().argmax(axis=1) == labels) == accuracy
