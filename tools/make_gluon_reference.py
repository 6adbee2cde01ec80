"""Reference data for tests/test_gluon_*.py, made with real MXNet 1.9.1.

Run with the reference environment:  /root/mxref/bin/python tools/make_gluon_reference.py
Writes tests/data/gluon/: net.params (a small HybridSequential's parameters saved by
MXNet's save_parameters), lstm.params, and reference.npz with the inputs, outputs,
gradients and loss values the tests compare against.
"""
import os

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "gluon")
os.makedirs(here, exist_ok=True)
rng = np.random.RandomState(7)
out = {}


def build_net():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, in_channels=2), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Dense(3, in_units=4 * 3 * 3))
    return net


net = build_net()
net.initialize()
for name, param in sorted(net.collect_params().items()):
    value = rng.uniform(-0.5, 0.5, size=param.shape).astype("float32")
    if name.endswith("running_var"):
        value = np.abs(value) + 0.5
    param.set_data(mx.nd.array(value))
net.save_parameters(os.path.join(here, "net.params"))
x = rng.uniform(-1, 1, size=(2, 2, 8, 8)).astype("float32")
out["net_x"] = x
out["net_predict"] = net(mx.nd.array(x)).asnumpy()
xa = mx.nd.array(x)
xa.attach_grad()
with autograd.record():
    y = net(xa)
    loss = (y * y).sum()
loss.backward()
out["net_train"] = y.asnumpy()
out["net_grad_x"] = xa.grad.asnumpy()
for key, param in net._collect_params_with_prefix().items():
    if param.grad_req != "null":
        out["net_grad." + key] = param.grad().asnumpy()
    else:
        out["net_after." + key] = param.data().asnumpy()

# losses on fixed inputs
pred = rng.uniform(-2, 2, size=(4, 5)).astype("float32")
label = rng.uniform(-1, 1, size=(4, 5)).astype("float32")
sparse = np.array([0, 3, 1, 4], dtype="float32")
sign = np.sign(label).astype("float32")
weights = rng.uniform(0, 1, size=(4, 1)).astype("float32")
out["loss_pred"], out["loss_label"], out["loss_sparse"], out["loss_weights"] = pred, label, sparse, weights
P, L, W = mx.nd.array(pred), mx.nd.array(label), mx.nd.array(weights)
prob = mx.nd.array(1 / (1 + np.exp(-pred)))
cases = {
    "l2": gluon.loss.L2Loss()(P, L, W),
    "l1": gluon.loss.L1Loss(weight=0.5)(P, L),
    "sce_sparse": gluon.loss.SoftmaxCrossEntropyLoss()(P, mx.nd.array(sparse)),
    "sce_dense": gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(P, mx.nd.softmax(L)),
    "bce": gluon.loss.SigmoidBinaryCrossEntropyLoss()(P, (L > 0), W),
    "bce_prob": gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True)(prob, (L > 0)),
    "kl": gluon.loss.KLDivLoss()(mx.nd.log_softmax(P), mx.nd.softmax(L)),
    "huber": gluon.loss.HuberLoss(rho=0.7)(P, L),
    "hinge": gluon.loss.HingeLoss()(P, mx.nd.array(sign)),
    "sq_hinge": gluon.loss.SquaredHingeLoss()(P, mx.nd.array(sign)),
    "logistic": gluon.loss.LogisticLoss()(P, mx.nd.array(sign)),
    "logistic_binary": gluon.loss.LogisticLoss(label_format="binary")(P, (L > 0)),
    "triplet": gluon.loss.TripletLoss()(P, L, L * 0.5),
    "poisson": gluon.loss.PoissonNLLLoss()(P, mx.nd.abs(L)),
    "cosine": gluon.loss.CosineEmbeddingLoss()(P, L, mx.nd.array([1, -1, 1, -1])),
}
rng_ctc = np.random.RandomState(11)
ctc_pred = rng_ctc.uniform(-1, 1, size=(2, 6, 4)).astype("float32")
out["ctc_pred"] = ctc_pred
cases["ctc"] = gluon.loss.CTCLoss()(mx.nd.array(ctc_pred), mx.nd.array([[1, 2, -1], [2, 2, 1]]))
for key, value in cases.items():
    out["loss." + key] = value.asnumpy()

# a fused LSTM layer and the same network unrolled from cells
lstm = rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3, prefix="lstm_")
lstm.initialize()
for name, param in sorted(lstm.collect_params().items()):
    param.set_data(mx.nd.array(rng.uniform(-0.4, 0.4, size=param.shape).astype("float32")))
lstm.save_parameters(os.path.join(here, "lstm.params"))
seq = rng.uniform(-1, 1, size=(4, 2, 3)).astype("float32")
out["lstm_x"] = seq
output, states = lstm(mx.nd.array(seq), lstm.begin_state(2))
out["lstm_out"] = output.asnumpy()
out["lstm_h"] = states[0].asnumpy()
out["lstm_c"] = states[1].asnumpy()
cell = rnn.GRUCell(4, input_size=3, prefix="gru_")
cell.initialize()
for name, param in sorted(cell.collect_params().items()):
    param.set_data(mx.nd.array(rng.uniform(-0.4, 0.4, size=param.shape).astype("float32")))
cell.save_parameters(os.path.join(here, "gru_cell.params"))
outputs, cell_states = cell.unroll(4, mx.nd.array(seq), layout="TNC", merge_outputs=True,
                                   valid_length=mx.nd.array([4, 2]))
out["gru_out"] = outputs.asnumpy()
out["gru_state"] = cell_states[0].asnumpy()

# one SGD step with momentum and weight decay through gluon.Trainer
dense = nn.Dense(2, in_units=3, prefix="fc_")
dense.initialize(mx.init.Constant(0.3))
trainer = gluon.Trainer(dense.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
data = mx.nd.array(rng.uniform(-1, 1, size=(4, 3)).astype("float32"))
out["trainer_x"] = data.asnumpy()
for _ in range(2):
    with autograd.record():
        l = (dense(data) ** 2).sum()
    l.backward()
    trainer.step(4)
out["trainer_weight"] = dense.weight.data().asnumpy()
out["trainer_bias"] = dense.bias.data().asnumpy()

np.savez(os.path.join(here, "reference.npz"), **out)
print("wrote", sorted(out))
