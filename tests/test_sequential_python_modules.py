"""SequentialModule chaining with a PythonLossModule head, checked against a single Module."""
import numpy as np

import mxtorch as mx


def test_sequential_module_with_python_loss_matches_single_module():
    rng = np.random.RandomState(0)
    x = rng.randn(8, 5).astype("float32")
    y = rng.randint(0, 3, 8).astype("float32")

    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    body = mx.mod.Module(net, label_names=None)

    def softmax_cross_entropy_grad(scores, labels):
        scores = scores.asnumpy()
        probabilities = np.exp(scores - scores.max(1, keepdims=True))
        probabilities /= probabilities.sum(1, keepdims=True)
        probabilities[np.arange(len(probabilities)), labels.asnumpy().astype(int)] -= 1
        return probabilities

    head = mx.mod.PythonLossModule(grad_func=softmax_cross_entropy_grad)
    chain = mx.mod.SequentialModule().add(body).add(head, take_labels=True, auto_wiring=True)
    chain.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    chain.init_params(mx.init.Xavier())
    chain.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "rescale_grad": 1.0})

    single = mx.mod.Module(mx.sym.SoftmaxOutput(net, name="softmax"))
    single.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    single.set_params(*[{k: v.copy() for k, v in d.items()} for d in chain.get_params()])
    single.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "rescale_grad": 1.0})

    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    for _ in range(3):
        for module in (chain, single):
            module.forward(batch, is_train=True)
            module.backward()
            module.update()
    np.testing.assert_allclose(chain.get_params()[0]["fc_weight"].asnumpy(),
                               single.get_params()[0]["fc_weight"].asnumpy(), rtol=1e-5, atol=1e-6)
    assert chain.output_shapes == [("pyloss_output", (8, 3))]
    metric = mx.metric.create("acc")
    chain.update_metric(metric, batch.label)
    assert metric.num_inst == 8
