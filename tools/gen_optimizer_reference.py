"""Writes the mxtorch-recorded parts of tests/data/optimizer/ with the real MXNet 1.9.1.

    ~/mxref/bin/python tools/gen_optimizer_reference.py [OUTPUT_FOLDER]   # default tests/data/optimizer

``index.json`` and the ``<case>.npz`` runs are the shared MXNet 1.9.1 fixtures
(/work/shared/fixtures/mxnet-1.9.1/optimizer), whose generator is not in this repository.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                         "data", "optimizer")


def extra_cases():
    """Updater runs with two parameters as lists: extra_cases.{npz,json}."""
    # Generates tests/data/optimizer/extra_cases.{npz,json} with real MXNet 1.9.1 (run with ~/mxref/bin/python).
    rng = np.random.RandomState(7)
    cases = []
    arrays = {}
    def run(name, opt_name, kwargs, dtype='float32', shapes=((4, 5), (5,)), names=None, steps=4, sched=None):
        kw = dict(kwargs)
        if names is not None:
            kw['param_idx2name'] = {i: n for i, n in enumerate(names)}
        if sched:
            kw['lr_scheduler'] = getattr(mx.lr_scheduler, sched['cls'])(**sched['kwargs'])
        opt = mx.optimizer.create(opt_name, **kw)
        up = mx.optimizer.get_updater(opt)
        ws = []
        for i, s in enumerate(shapes):
            w0 = rng.uniform(-1, 1, size=s).astype(dtype)
            arrays[f'{name}:weight0:{i}'] = w0
            ws.append(mx.nd.array(w0, dtype=dtype))
        for k in range(1, steps + 1):
            gs = []
            for i, s in enumerate(shapes):
                g = rng.uniform(-2, 2, size=s).astype(dtype)
                arrays[f'{name}:grad:{k}:{i}'] = g
                gs.append(mx.nd.array(g, dtype=dtype))
            up(list(range(len(shapes))), gs, ws)
            for i in range(len(shapes)):
                arrays[f'{name}:weight:{k}:{i}'] = ws[i].asnumpy()
        cases.append(dict(name=name, optimizer=opt_name, kwargs=kwargs, dtype=dtype, shapes=[list(s) for s in shapes],
                          names=names, steps=steps, lr_scheduler=sched))
    run('sgd_mp_fp16', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=1.0,
                                     multi_precision=True), dtype='float16')
    run('nag_mp_fp16', 'nag', dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, multi_precision=True),
        dtype='float16')
    run('adam_mp_fp16', 'adam', dict(learning_rate=0.01, wd=0.01, rescale_grad=0.5, multi_precision=True), dtype='float16')
    run('lamb_mp_fp16', 'lamb', dict(learning_rate=0.01, wd=0.01, rescale_grad=0.5, multi_precision=True), dtype='float16')
    run('lars_momentum', 'lars', dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, eta=0.01),
        names=['fc_weight', 'fc_bias'],
        sched=dict(cls='FactorScheduler', kwargs=dict(step=2, factor=0.5, base_lr=0.1)))
    run('lbsgd_linear', 'lbsgd', dict(learning_rate=0.1, momentum=0.9, rescale_grad=0.5, batch_scale=2,
                                       warmup_epochs=1, updates_per_epoch=4, warmup_strategy='linear'), steps=6)
    run('lbsgd_lars', 'lbsgd', dict(learning_rate=0.1, rescale_grad=0.5, batch_scale=1, wd=0.01,
                                     warmup_strategy='lars'))
    run('groupadagrad', 'groupadagrad', dict(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.5),
        shapes=((4, 5), (3, 2)))
    run('test', 'test', dict(rescale_grad=0.5))
    run('sgd_names_mults', 'sgd', dict(learning_rate=0.1, momentum=0.5, wd=0.1, rescale_grad=0.5),
        names=['conv_weight', 'conv_bias'])
    run('adagrad_names', 'adagrad', dict(learning_rate=0.1, wd=0.1), names=['bn_gamma', 'bn_beta'])
    np.savez_compressed(OUT + '/extra_cases.npz', **arrays)
    json.dump(dict(generator='tools: gen_extra.py with MXNet 1.9.1', cases=cases),
              open(OUT + '/extra_cases.json', 'w'), indent=1)
    print(len(cases), len(arrays))


def dump_states():
    """get_states(dump_optimizer=True): *_dump.states, *_dump.npz, dump_cases.json."""
    # Writes tests/data/optimizer/*_dump.states with real MXNet 1.9.1: get_states(dump_optimizer=True).
    rng = np.random.RandomState(3)
    meta = {}
    for name, opt_name, kw in [
            ('sgd_factor', 'sgd', dict(learning_rate=0.2, momentum=0.9, wd=0.01, rescale_grad=0.5,
                                       param_idx2name={0: 'fc_weight', 1: 'fc_bias'},
                                       lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.2))),
            ('adam', 'adam', dict(learning_rate=0.01, clip_gradient=1.0))]:
        opt = mx.optimizer.create(opt_name, **kw)
        opt.set_lr_mult({'fc_bias': 2.0})
        up = mx.optimizer.get_updater(opt)
        ws = [mx.nd.array(rng.randn(3, 4)), mx.nd.array(rng.randn(4))]
        for k in range(3):
            up([0, 1], [mx.nd.array(rng.randn(3, 4)), mx.nd.array(rng.randn(4))], ws)
        open(OUT + f'/{name}_dump.states', 'wb').write(up.get_states(dump_optimizer=True))
        # one more step from here gives the expected continuation
        grads = [rng.randn(3, 4).astype('float32'), rng.randn(4).astype('float32')]
        before = [w.asnumpy() for w in ws]
        up([0, 1], [mx.nd.array(g) for g in grads], ws)
        np.savez(OUT + f'/{name}_dump.npz', weight0=before[0], weight1=before[1],
                 grad0=grads[0], grad1=grads[1], after0=ws[0].asnumpy(), after1=ws[1].asnumpy())
        meta[name] = dict(optimizer=opt_name, num_update=opt.num_update, lr=opt.learning_rate,
                          lr_mult=opt.lr_mult, wd_mult=opt.wd_mult)
    json.dump(meta, open(OUT + '/dump_cases.json', 'w'), indent=1)
    print(meta)


def initializer_reference():
    """FusedRNN layout, Bilinear kernel, dumps(): initializer_reference.{npz,json}."""
    # Reference initializer data from MXNet 1.9.1: FusedRNN layout, Bilinear kernel, dumps() strings.
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
    np.savez_compressed(OUT + '/initializer_reference.npz', **out)
    json.dump(meta, open(OUT + '/initializer_reference.json', 'w'), indent=1)
    print(meta)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for step in (extra_cases, dump_states, initializer_reference):
        step()
        print("written", step.__name__)
