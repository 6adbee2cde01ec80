"""Graphs and data shared by ``tests/test_rnn.py`` and ``tools/gen_rnn_reference.py``.

Each builder takes the ``mx`` module (mxtorch in the tests, MXNet 1.9.1 in the
generator) so both build the same cells with the same calls; the generator saves
MXNet's JSON and numbers into ``tests/data/rnn`` and the tests compare mxtorch's.
Builders run inside a fresh ``NameManager`` (automatic names start at 0).
"""
import numpy as np

BATCH, STEPS, FEATURES, HIDDEN = 2, 3, 4, 5


def _group(mx, outputs, states):
    """Outputs and (nested) states as one Group, each graph entry once: MXNet 1.9.1 gives a
    repeated head only the last head gradient, mxtorch (correctly) their sum."""
    outputs = outputs if isinstance(outputs, list) else [outputs]
    flat = []

    def collect(item):
        if isinstance(item, list):
            for element in item:
                collect(element)
        else:
            flat.append(item)
    collect(states)
    entries, seen = [], set()
    for symbol in outputs + flat:
        if symbol.list_outputs()[0] not in seen:
            seen.add(symbol.list_outputs()[0])
            entries.append(symbol)
    return mx.sym.Group(entries)


def rnn_tanh_ntc_merge(mx):
    cell = mx.rnn.RNNCell(HIDDEN, prefix="rnn_")
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def rnn_relu_list(mx):
    cell = mx.rnn.RNNCell(HIDDEN, activation="relu", prefix="relu_")
    inputs = [mx.sym.Variable(f"x{t}") for t in range(STEPS)]
    outputs, states = cell.unroll(STEPS, inputs, merge_outputs=False)
    return _group(mx, outputs, states), {f"x{t}": (BATCH, FEATURES) for t in range(STEPS)}


def lstm_tnc_merge(mx):
    cell = mx.rnn.LSTMCell(HIDDEN, forget_bias=2.0)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    return _group(mx, outputs, states), {"data": (STEPS, BATCH, FEATURES)}


def lstm_begin_variables(mx):
    cell = mx.rnn.LSTMCell(HIDDEN, prefix="lv_")
    begin = cell.begin_state(func=mx.sym.Variable)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), begin_state=begin)
    shapes = {"data": (BATCH, STEPS, FEATURES), "lv_begin_state_0": (BATCH, HIDDEN),
              "lv_begin_state_1": (BATCH, HIDDEN)}
    return _group(mx, outputs, states), shapes


def gru_ntc_merge(mx):
    cell = mx.rnn.GRUCell(HIDDEN)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def gru_steps(mx):
    cell = mx.rnn.GRUCell(HIDDEN, prefix="g_")
    states = cell.begin_state()
    outputs = []
    for t in range(2):
        output, states = cell(mx.sym.Variable(f"x{t}"), states)
        outputs.append(output)
    return _group(mx, outputs, states), {f"x{t}": (BATCH, FEATURES) for t in range(2)}


def fused_lstm_bidirectional(mx):
    cell = mx.rnn.FusedRNNCell(HIDDEN, num_layers=2, mode="lstm", bidirectional=True, get_next_state=True)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def fused_gru_tnc_list(mx):
    cell = mx.rnn.FusedRNNCell(HIDDEN, mode="gru", prefix="fgru_")
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="TNC", merge_outputs=False)
    return _group(mx, outputs, states), {"data": (STEPS, BATCH, FEATURES)}


def fused_relu_dropout(mx):
    cell = mx.rnn.FusedRNNCell(HIDDEN, num_layers=2, mode="rnn_relu", dropout=0.3, get_next_state=True)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="TNC")
    return _group(mx, outputs, states), {"data": (STEPS, BATCH, FEATURES)}


def unfused_lstm_bidirectional(mx):
    cell = mx.rnn.FusedRNNCell(HIDDEN, num_layers=2, mode="lstm", bidirectional=True, dropout=0.2).unfuse()
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def _stack(mx):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(HIDDEN, prefix="l0_"))
    stack.add(mx.rnn.DropoutCell(0.5))
    stack.add(mx.rnn.GRUCell(HIDDEN, prefix="l1_"))
    return stack


def sequential_list(mx):
    outputs, states = _stack(mx).unroll(STEPS, mx.sym.Variable("data"), merge_outputs=False)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def sequential_steps(mx):
    stack = _stack(mx)
    states = stack.begin_state()
    outputs = []
    for t in range(2):
        output, states = stack(mx.sym.Variable(f"x{t}"), states)
        outputs.append(output)
    return _group(mx, outputs, states), {f"x{t}": (BATCH, FEATURES) for t in range(2)}


def residual_merge(mx):
    cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(FEATURES, prefix="res_"))
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def residual_steps(mx):
    cell = mx.rnn.ResidualCell(mx.rnn.RNNCell(FEATURES, prefix="rs_"))
    outputs, states = cell.unroll(STEPS, [mx.sym.Variable(f"x{t}") for t in range(STEPS)])
    return _group(mx, outputs, states), {f"x{t}": (BATCH, FEATURES) for t in range(STEPS)}


def zoneout(mx):
    cell = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(HIDDEN, prefix="z_"), zoneout_outputs=0.3, zoneout_states=0.4)
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def bidirectional_merge(mx):
    cell = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(HIDDEN, prefix="l_"), mx.rnn.GRUCell(HIDDEN, prefix="r_"))
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, STEPS, FEATURES)}


def bidirectional_list(mx):
    cell = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(HIDDEN, prefix="l_"), mx.rnn.RNNCell(HIDDEN, prefix="r_"),
                                    output_prefix="both_")
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="TNC")
    return _group(mx, outputs, states), {"data": (STEPS, BATCH, FEATURES)}


def bidirectional_mixed(mx):
    # the left cell returns one symbol, the right one a list: MXNet splits the merged one
    cell = mx.rnn.BidirectionalCell(mx.rnn.FusedRNNCell(HIDDEN, mode="gru", prefix="lf_"),
                                    mx.rnn.GRUCell(HIDDEN, prefix="rg_"))
    outputs, states = cell.unroll(STEPS, mx.sym.Variable("data"), layout="TNC")
    return _group(mx, outputs, states), {"data": (STEPS, BATCH, FEATURES)}


CONV_INPUT = (BATCH, 2, 5, 5)


def conv_rnn(mx):
    cell = mx.rnn.ConvRNNCell(CONV_INPUT, 3)
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, 2) + CONV_INPUT[1:]}


def conv_lstm(mx):
    cell = mx.rnn.ConvLSTMCell(CONV_INPUT, 3, h2h_kernel=(3, 1), i2h_kernel=(3, 3), i2h_pad=(0, 0),
                               activation="tanh", i2h_weight_initializer=mx.init.Xavier())
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), layout="TNC")
    return _group(mx, outputs, states), {"data": (2,) + CONV_INPUT}


def conv_gru(mx):
    cell = mx.rnn.ConvGRUCell(CONV_INPUT, 3, h2h_dilate=(2, 2), prefix="cg_")
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=False)
    return _group(mx, outputs, states), {"data": (BATCH, 2) + CONV_INPUT[1:]}


def shared_params(mx):
    params = mx.rnn.RNNParams("shared_")
    first = mx.rnn.LSTMCell(FEATURES, prefix="a_", params=params)
    second = mx.rnn.LSTMCell(FEATURES, prefix="b_", params=params)
    stack = mx.rnn.SequentialRNNCell()
    stack.add(first)
    stack.add(second)
    outputs, states = stack.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    return _group(mx, outputs, states), {"data": (BATCH, 2, FEATURES)}


def dropout_merged(mx):
    cell = mx.rnn.DropoutCell(0.25)
    outputs, states = cell.unroll(STEPS, [mx.sym.Variable(f"x{t}") for t in range(STEPS)], merge_outputs=True)
    return _group(mx, outputs, states), {f"x{t}": (BATCH, FEATURES) for t in range(STEPS)}


def begin_state_uniform(mx):
    cell = mx.rnn.GRUCell(HIDDEN, prefix="u_")
    begin = cell.begin_state(func=mx.sym.uniform, low=-1, high=1)
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), begin_state=begin, merge_outputs=True)
    return _group(mx, outputs, states), None


#: name -> (builder, whether its numbers are deterministic in training)
GRAPHS = {
    "rnn_tanh_ntc_merge": (rnn_tanh_ntc_merge, True),
    "rnn_relu_list": (rnn_relu_list, True),
    "lstm_tnc_merge": (lstm_tnc_merge, True),
    "lstm_begin_variables": (lstm_begin_variables, True),
    "gru_ntc_merge": (gru_ntc_merge, True),
    "gru_steps": (gru_steps, True),
    "fused_lstm_bidirectional": (fused_lstm_bidirectional, True),
    "fused_gru_tnc_list": (fused_gru_tnc_list, True),
    "fused_relu_dropout": (fused_relu_dropout, False),
    "unfused_lstm_bidirectional": (unfused_lstm_bidirectional, False),
    "sequential_list": (sequential_list, False),
    "sequential_steps": (sequential_steps, False),
    "residual_merge": (residual_merge, True),
    "residual_steps": (residual_steps, True),
    "zoneout": (zoneout, False),
    "bidirectional_merge": (bidirectional_merge, True),
    "bidirectional_list": (bidirectional_list, True),
    "bidirectional_mixed": (bidirectional_mixed, True),
    "conv_rnn": (conv_rnn, True),
    "conv_lstm": (conv_lstm, True),
    "conv_gru": (conv_gru, True),
    "shared_params": (shared_params, True),
    "dropout_merged": (dropout_merged, False),
    "begin_state_uniform": (begin_state_uniform, None),
}


def lstm_lm(mx):
    """The network of the MXNet checkpoint fixture ``lstm_lm``."""
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("softmax_label")
    embed = mx.sym.Embedding(data, input_dim=12, output_dim=6, name="embed")
    cell = mx.rnn.LSTMCell(8, prefix="lstm_")
    outputs, _ = cell.unroll(5, embed, layout="NTC", merge_outputs=True)
    pred = mx.sym.Reshape(outputs, shape=(-1, 8), name="reshape_pred")
    pred = mx.sym.FullyConnected(pred, num_hidden=12, name="pred")
    label = mx.sym.Reshape(label, shape=(-1,), name="reshape_label")
    return mx.sym.SoftmaxOutput(pred, label, name="softmax")


# -- language model trained with BucketingModule ------------------------------------------------------
VOCAB, EMBED, LM_HIDDEN, LM_BATCH = 16, 6, 8, 4


def sentences(seed=0, count=60):
    """Deterministic token sentences (ids 1..VOCAB-1, lengths 1..9)."""
    state = np.random.RandomState(seed)
    lengths = state.randint(1, 10, size=count)
    return [[int(t) for t in state.randint(1, VOCAB, size=length)] for length in lengths]


def lm_sym_gen(mx, cell):
    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        label = mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=VOCAB, output_dim=EMBED, name="embed")
        cell.reset()
        outputs, _ = cell.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, LM_HIDDEN))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=VOCAB, name="pred")
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name="softmax", use_ignore=True, ignore_label=0)
        return pred, ("data",), ("softmax_label",)
    return sym_gen


def lm_initial_params():
    """Fixed initial parameters of the language model (numpy, float32)."""
    state = np.random.RandomState(7)
    shapes = {"embed_weight": (VOCAB, EMBED), "lstm_i2h_weight": (4 * LM_HIDDEN, EMBED),
              "lstm_i2h_bias": (4 * LM_HIDDEN,), "lstm_h2h_weight": (4 * LM_HIDDEN, LM_HIDDEN),
              "lstm_h2h_bias": (4 * LM_HIDDEN,), "pred_weight": (VOCAB, LM_HIDDEN), "pred_bias": (VOCAB,)}
    return {name: state.uniform(-0.3, 0.3, size=shape).astype(np.float32) for name, shape in shapes.items()}


LM_BUCKETS = [3, 6, 9]
LM_OPTIMIZER = ("sgd", {"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-4, "rescale_grad": 1.0 / LM_BATCH})
