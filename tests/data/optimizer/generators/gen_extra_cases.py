# Generates tests/data/optimizer/extra_cases.{npz,json} with real MXNet 1.9.1 (run with ~/mxref/bin/python).
import json, numpy as np, mxnet as mx
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
np.savez_compressed('/work/main/tests/data/optimizer/extra_cases.npz', **arrays)
json.dump(dict(generator='tools: gen_extra.py with MXNet 1.9.1', cases=cases),
          open('/work/main/tests/data/optimizer/extra_cases.json', 'w'), indent=1)
print(len(cases), len(arrays))
