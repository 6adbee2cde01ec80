# Writes tests/data/optimizer/*_dump.states with real MXNet 1.9.1: get_states(dump_optimizer=True).
import json, numpy as np, mxnet as mx
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
    open(f'/work/main/tests/data/optimizer/{name}_dump.states', 'wb').write(up.get_states(dump_optimizer=True))
    # one more step from here gives the expected continuation
    grads = [rng.randn(3, 4).astype('float32'), rng.randn(4).astype('float32')]
    before = [w.asnumpy() for w in ws]
    up([0, 1], [mx.nd.array(g) for g in grads], ws)
    np.savez(f'/work/main/tests/data/optimizer/{name}_dump.npz', weight0=before[0], weight1=before[1],
             grad0=grads[0], grad1=grads[1], after0=ws[0].asnumpy(), after1=ws[1].asnumpy())
    meta[name] = dict(optimizer=opt_name, num_update=opt.num_update, lr=opt.learning_rate,
                      lr_mult=opt.lr_mult, wd_mult=opt.wd_mult)
json.dump(meta, open('/work/main/tests/data/optimizer/dump_cases.json', 'w'), indent=1)
print(meta)
