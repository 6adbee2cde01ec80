"""Networks shared by the Module tests (``test_module.py``, ``test_data_parallel.py``).

``mlp`` is also the network of ``tools/gen_module_reference.py``, which builds it with the
real MXNet for the references in ``tests/data/module``: the layer names and sizes here must
stay those of the generator.
"""
import mxtorch as mx


def mlp():
    """data -> FullyConnected fc1 (16) -> relu1 -> FullyConnected fc2 (4) -> SoftmaxOutput softmax."""
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=16)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=4)
    return mx.sym.SoftmaxOutput(net, name="softmax")
