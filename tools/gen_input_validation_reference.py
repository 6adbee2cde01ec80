"""Outcomes of bad input in MXNet 1.9.1 (the reference for tests/test_inplace_recording.py and
tests/test_input_validation.py): run with ~/mxref/bin/python tools/gen_input_validation_reference.py;
with the argument `mxt` it runs the same cases on mxtorch.  Prints one line per case: OK and the
result, or RAISE, the exception classes and the message."""
import sys, os, tempfile
import numpy as np
if len(sys.argv) > 1 and sys.argv[1] == 'mxt':
    import mxtorch as mx
else:
    import mxnet as mx
nd = mx.nd; ag = mx.autograd
def run(name, f):
    try:
        r = f()
        print(name, 'OK', r)
    except Exception as e:
        print(name, 'RAISE', type(e).__mro__[:3], str(e).replace('\n',' ')[:200])
def inplace(kind):
    def f():
        x = nd.array([1., 2.]); x.attach_grad()
        with ag.record():
            y = x * 2
            if kind == 'idx': y[0] = 7
            if kind == 'slice': y[:] = 0
            if kind == 'imul': y *= y
            if kind == 'iadd': y += 1
            if kind == 'relu': nd.relu(y, out=y)
            if kind == 'fresh':
                a = nd.zeros(2); a[:] = y; y = a
            if kind == 'leaf': x[:] = 3; y = x*2
            if kind == 'leafiadd': x += 1; y = x*2
            z = (y * y).sum()
        z.backward()
        return x.grad.asnumpy()
    return f
for k in ['idx','slice','imul','iadd','relu','fresh','leaf','leafiadd']:
    run('inplace_'+k, inplace(k))
run('clip', lambda: nd.clip(nd.array([1,5]), 4, 2).asnumpy())
run('gather_nd', lambda: nd.gather_nd(nd.array([1,2,3]), nd.array([[5]])).asnumpy())
run('normal', lambda: nd.random.normal(0, -1, shape=(2,)).asnumpy())
run('uniform', lambda: nd.random.uniform(2, 1, shape=(2,)).asnumpy())
run('slice_axis', lambda: nd.slice_axis(nd.ones((2,3)), axis=1, begin=5, end=7).shape)
def exreshape():
    s = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3)
    e = s.simple_bind(mx.cpu(), data=(2,4))
    return e.reshape(data=(5,4)).arg_dict['data'].shape
run('exec_reshape', exreshape)
def fit(**kw):
    def f():
        data = mx.sym.Variable('data')
        out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2), name='softmax')
        it = mx.io.NDArrayIter(np.random.rand(8,3).astype('f'), np.array([0,1]*4,'f'), batch_size=4)
        m = mx.mod.Module(out)
        m.fit(it, num_epoch=1, **kw)
        return 'trained'
    return f
run('fit_kv', fit(kvstore='foo'))
run('fit_init', fit(initializer=None))
run('sym_fc_nd', lambda: mx.sym.FullyConnected(mx.nd.ones((2,3)), num_hidden=2))
run('nd_fc_sym', lambda: mx.nd.FullyConnected(mx.sym.Variable('data'), num_hidden=2))
run('relu_list', lambda: mx.nd.relu([1,-2]))
run('tile', lambda: nd.tile(nd.ones((2,3)), reps=(-1,)))
run('max_empty', lambda: nd.max(nd.zeros((0,3)), axis=0))
def dense16():
    net = mx.gluon.nn.Dense(2, in_units=3); net.initialize(); net.cast('float16')
    return net(nd.ones((1,3))).dtype
run('dense16', dense16)
def trainer():
    net = mx.gluon.nn.Dense(2, in_units=3); net.initialize()
    return mx.gluon.Trainer(net.collect_params(), 'nope')
run('trainer', trainer)
run('opt_create', lambda: mx.optimizer.create('nope'))
run('asscalar', lambda: nd.ones(2).asscalar())
run('reshape', lambda: nd.ones(6).reshape((4,)))
run('metric', lambda: mx.metric.create('accu'))
run('bool', lambda: bool(nd.ones(2)))
run('save', lambda: nd.save(os.path.join(tempfile.mkdtemp(), 'x'), {'a': 1}))
run('dtype', lambda: nd.ones(2, dtype='flot32'))
def bindmiss():
    s = mx.sym.Variable('a') + mx.sym.Variable('b')
    return s.bind(mx.cpu(), {'a': nd.ones(2)})
run('bind_missing', bindmiss)
def fwd(kind):
    def f():
        s = mx.sym.Variable('a') * 2
        e = s.bind(mx.cpu(), {'a': nd.ones(2)})
        if kind == 'shape': e.forward(a=nd.ones(3))
        else: e.forward(b=nd.ones(2))
    return f
run('fwd_shape', fwd('shape')); run('fwd_kw', fwd('kw'))
run('internals', lambda: mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2).get_internals()['nope'])
def modfwd():
    m = mx.mod.Module(mx.sym.Variable('data')*2, label_names=None)
    m.forward(mx.io.DataBatch([nd.ones((1,2))]))
run('mod_fwd', modfwd)
def symblock():
    d = tempfile.mkdtemp()
    net = mx.gluon.nn.HybridSequential(); net.add(mx.gluon.nn.Dense(2)); net.initialize(); net.hybridize()
    net(nd.ones((1,3))); net.export(os.path.join(d,'m'))
    return mx.gluon.SymbolBlock.imports(os.path.join(d,'m-symbol.json'), ['wrong'], os.path.join(d,'m-0000.params'))
run('symblock', symblock)
def loadp():
    d = tempfile.mkdtemp()
    a = mx.gluon.nn.Dense(2, in_units=3); a.initialize(); a.save_parameters(os.path.join(d,'p'))
    b = mx.gluon.nn.Conv2D(2, 3, in_channels=1); b.initialize(); b.load_parameters(os.path.join(d,'p'))
run('loadp', loadp)
def lstm():
    l = mx.gluon.rnn.LSTM(4); l.initialize()
    return l(nd.ones((3,2)))
run('lstm', lstm)
def ce():
    m = mx.metric.CrossEntropy(); m.update([nd.array([5])], [nd.array([[0.5,0.5]])]); return m.get()
run('ce', ce)
def pdtype():
    net = mx.gluon.nn.Dense(2, in_units=3); net.initialize(); net.cast('float16')
    return repr(net.weight.dtype)
run('pdtype', pdtype)
