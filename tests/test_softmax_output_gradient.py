"""SoftmaxOutput's gradient (computed with a scatter, never a one-hot tensor) against the
formula of MXNet's softmax_output-inl.h written out in numpy: ``(p - onehot(label)) * scale``
with ``smooth_alpha`` spreading ``alpha`` over the other classes, ignored labels giving zero,
a label outside ``[0, classes)`` giving ``p``, and the 'null' / 'batch' / 'valid' counts."""
import itertools

import numpy as np
import pytest

import mxtorch as mx


def _reference(data, label, multi_output, use_ignore, ignore_label, normalization, smooth_alpha, grad_scale):
    if multi_output:
        logits = data.reshape(data.shape[0], data.shape[1], -1)              # (N, K, S)
    else:
        logits = data.reshape(data.shape[0], -1)[:, :, None]                 # (N, K, 1)
    rows, classes, spatial = logits.shape
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    label = label.reshape(rows, spatial)
    index = np.trunc(label).astype(np.int64)
    valid = label != ignore_label if use_ignore else np.ones_like(label, bool)
    target = np.zeros_like(p)
    for n, s in itertools.product(range(rows), range(spatial)):
        if valid[n, s] and 0 <= index[n, s] < classes:
            target[n, index[n, s], s] = 1.0
    if smooth_alpha:
        target = target * (1 - smooth_alpha) + (1 - target) * smooth_alpha / (classes - 1)
    gradient = (p - target) * valid[:, None, :]
    if normalization == "valid":
        gradient *= grad_scale / (max(valid.sum(), 1) if use_ignore else valid.size)
    elif normalization == "batch":
        gradient *= grad_scale / rows / (spatial if multi_output else 1)
    else:
        gradient *= grad_scale / (spatial if multi_output else 1)
    return gradient.reshape(data.shape)


@pytest.mark.parametrize("multi_output,use_ignore,normalization,smooth_alpha",
                         list(itertools.product([False, True], [False, True], ["null", "batch", "valid"],
                                                [0.0, 0.2])))
def test_softmax_output_gradient_matches_the_formula(multi_output, use_ignore, normalization, smooth_alpha):
    rng = np.random.RandomState(sum(map(ord, f"{multi_output}{use_ignore}{normalization}{smooth_alpha}")))
    if multi_output:
        data = rng.normal(size=(3, 4, 5)).astype(np.float32)
        label = rng.randint(-1, 5, size=(3, 5)).astype(np.float32)      # -1 and 4: outside [0, 4)
    else:
        data = rng.normal(size=(7, 4)).astype(np.float32)
        label = rng.randint(-1, 5, size=(7,)).astype(np.float32)
    options = dict(multi_output=multi_output, use_ignore=use_ignore, ignore_label=2.0,
                   normalization=normalization, smooth_alpha=smooth_alpha, grad_scale=1.5)
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.SoftmaxOutput(x, mx.nd.array(label), **options)
    out.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), _reference(data, label, **options), rtol=1e-5, atol=1e-6)


def test_softmax_output_gradient_in_float64_with_valid_normalisation():
    rng = np.random.RandomState(3)
    data = rng.normal(size=(6, 3))
    label = np.array([0, 1, 2, 1, 1, 0], np.float64)
    x = mx.nd.array(data, dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.SoftmaxOutput(x, mx.nd.array(label, dtype=np.float64), use_ignore=True, ignore_label=1,
                                  normalization="valid")
    out.backward()
    assert x.grad.dtype == np.float64
    expected = _reference(data, label, False, True, 1.0, "valid", 0.0, 1.0)
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-12, atol=1e-12)


def test_preserve_shape_takes_probability_labels_of_the_data_shape():
    # MXNet 1.9.1: SoftmaxOutput(preserve_shape=True, grad_scale=2) with a (3, 2, 2) label of the
    # data's shape gives the gradient 2 * (softmax(x, axis=-1) - label)
    x = mx.nd.array(np.arange(12).reshape(3, 2, 2) * 0.3)
    label = mx.nd.array([[[0.5, 0.5], [1, 0]]] * 3)
    grad = mx.nd.zeros((3, 2, 2))
    head = mx.sym.SoftmaxOutput(data=mx.sym.Variable("X"), label=mx.sym.Variable("L"),
                                preserve_shape=True, grad_scale=2.0)
    exe = head.bind(mx.cpu(), args=[x, label], args_grad={"X": grad})
    exe.forward(is_train=True)
    exe.backward()
    row = [[-0.148885, 0.148885], [-1.148885, 1.148885]]
    np.testing.assert_allclose(grad.asnumpy(), np.array([row] * 3), atol=1e-5)
