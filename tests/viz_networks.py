"""The networks and calls of tests/test_visualization.py, shared with the generator of its
MXNet 1.9.1 reference (tools/gen_viz_reference.py): ``networks(mx)`` builds them with the
given ``mx`` (mxtorch in the tests, MXNet in the generator)."""


def networks(mx):
    """``{'mlp': builder, 'convnet': builder, 'embed': builder}``."""
    def mlp():
        data = mx.sym.Variable("data")
        net = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=128)
        net = mx.sym.Activation(data=net, name="relu1", act_type="relu")
        net = mx.sym.FullyConnected(data=net, name="fc2", num_hidden=64)
        net = mx.sym.Activation(data=net, name="relu2", act_type="relu")
        net = mx.sym.FullyConnected(data=net, name="fc3", num_hidden=10)
        return mx.sym.SoftmaxOutput(data=net, name="softmax")


    def convnet():
        data = mx.sym.Variable("data")
        c1 = mx.sym.Convolution(data=data, name="conv1", kernel=(3, 3), num_filter=8, pad=(1, 1))
        b1 = mx.sym.BatchNorm(data=c1, name="bn1")
        a1 = mx.sym.Activation(data=b1, name="relu1", act_type="relu")
        p1 = mx.sym.Pooling(data=a1, name="pool1", kernel=(2, 2), stride=(2, 2), pool_type="max")
        c2 = mx.sym.Convolution(data=p1, name="conv2", kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True)
        c3 = mx.sym.Convolution(data=p1, name="conv3", kernel=(1, 1), num_filter=4, num_group=2)
        cat = mx.sym.Concat(c2, c3, name="concat", dim=1)
        leaky = mx.sym.LeakyReLU(data=cat, name="leaky", act_type="leaky")
        pooled = mx.sym.Pooling(data=leaky, name="gpool", global_pool=True, pool_type="avg", kernel=(1, 1))
        flat = mx.sym.Flatten(data=pooled, name="flatten")
        fc = mx.sym.FullyConnected(data=flat, name="fc", num_hidden=10, no_bias=True)
        return mx.sym.SoftmaxOutput(data=fc, name="softmax")


    def embed():
        data = mx.sym.Variable("data")
        embedded = mx.sym.Embedding(data=data, name="embed", input_dim=100, output_dim=16)
        halves = mx.sym.SliceChannel(data=embedded, num_outputs=2, axis=1, name="split")
        added = mx.sym.elemwise_add(halves[0], halves[1], name="add")
        flat = mx.sym.Reshape(data=added, shape=(0, -1), name="reshape")
        return mx.sym.LinearRegressionOutput(data=flat, name="out")

    return {"mlp": mlp, "convnet": convnet, "embed": embed}


def summaries(nets):
    """``[(file, builder, print_summary kwargs)]``."""
    mlp, convnet, embed = nets["mlp"], nets["convnet"], nets["embed"]
    return [
        ("summary_mlp_shape.txt", mlp, dict(shape={"data": (32, 100)})),
        ("summary_mlp_noshape.txt", mlp, dict()),
        ("summary_mlp_narrow.txt", mlp, dict(shape={"data": (32, 100)}, line_length=80, positions=[30, 50, 60, 80])),
        ("summary_convnet_shape.txt", convnet, dict(shape={"data": (2, 3, 16, 16)})),
        ("summary_embed_shape.txt", embed, dict(shape={"data": (4, 6)})),
    ]


def plots(nets, np):
    """``[(file, builder, plot_network kwargs)]``."""
    mlp, convnet, embed = nets["mlp"], nets["convnet"], nets["embed"]
    return [
        ("plot_mlp_plain.gv", mlp, dict()),
        ("plot_mlp_shape_dtype.gv", mlp, dict(shape={"data": (32, 100)}, dtype={"data": np.float32}, title="mlp",
                                              save_format="png")),
        ("plot_convnet_shape.gv", convnet, dict(shape={"data": (2, 3, 16, 16)}, hide_weights=False,
                                                node_attrs={"shape": "oval", "fixedsize": "false"})),
        ("plot_embed_shape.gv", embed, dict(shape={"data": (4, 6)})),
    ]
