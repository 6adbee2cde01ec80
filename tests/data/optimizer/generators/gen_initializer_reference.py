# Reference initializer data from MXNet 1.9.1: FusedRNN layout, Bilinear kernel, dumps() strings.
import json, numpy as np, mxnet as mx
@mx.init.register
class NameCode(mx.init.Initializer):
    def _init_weight(self, name, arr):
        arr[:] = (sum(map(ord, name)) % 97) / 10.0 + np.arange(arr.size).reshape(arr.shape) / 1000.0
    def _init_bias(self, name, arr):
        arr[:] = -len(name)
out = {}
meta = {}
for key, (mode, layers, bi, hidden, inputs) in {'lstm_2l_bi': ('lstm', 2, True, 3, 4), 'gru_1l': ('gru', 1, False, 2, 5),
                                                 'rnn_tanh_2l': ('rnn_tanh', 2, False, 3, 2)}.items():
    cell = mx.rnn.FusedRNNCell(hidden, num_layers=layers, mode=mode, bidirectional=bi, prefix='')
    m = len(cell._gate_names); b = 2 if bi else 1
    total = (inputs + hidden + 2) * hidden * m * b + (layers - 1) * m * hidden * (hidden + b * hidden + 2) * b
    arr = mx.nd.zeros((total,))
    init = mx.init.FusedRNN(NameCode(), hidden, layers, mode, bi, forget_bias=1.5)
    init._init_weight(mx.init.InitDesc('rnn_parameters', global_init=NameCode()), arr)
    out['fused:' + key] = arr.asnumpy()
    meta[key] = dict(mode=mode, num_layers=layers, bidirectional=bi, num_hidden=hidden, total=total)
arr = mx.nd.zeros((2, 3, 4, 5)); mx.init.Bilinear()(mx.init.InitDesc('up_weight'), arr); out['bilinear:2x3x4x5'] = arr.asnumpy()
arr = mx.nd.zeros((1, 1, 3, 3)); mx.init.Bilinear()(mx.init.InitDesc('up_weight'), arr); out['bilinear:1x1x3x3'] = arr.asnumpy()
dumps = {k: v.dumps() for k, v in dict(xavier=mx.init.Xavier(factor_type='in', magnitude=2.34), normal=mx.init.Normal(0.5),
         constant=mx.init.Constant(2), msra=mx.init.MSRAPrelu(), uniform=mx.init.Uniform(), zero=mx.init.Zero(),
         orthogonal=mx.init.Orthogonal(), lstmbias=mx.init.LSTMBias(2.0), bilinear=mx.init.Bilinear(),
         fused=mx.init.FusedRNN(mx.init.Xavier(), 4, 1, 'lstm')).items()}
meta['dumps'] = dumps
np.savez_compressed('/work/main/tests/data/optimizer/initializer_reference.npz', **out)
json.dump(meta, open('/work/main/tests/data/optimizer/initializer_reference.json', 'w'), indent=1)
print(meta)
