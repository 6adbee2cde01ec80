"""Private behaviours of MXNet 1.9.1 that libraries built on it rely on (GluonNLP's
WeightDropParameter copies ``Parameter._ctx_map``; GluonCV catches the ValueError of
``reset_ctx``; wrappers pass ``base._Null`` for arguments they do not set).  Expected values
were printed by MXNet 1.9.1 for the same calls."""
import pytest

import mxtorch as mx
from mxtorch.base import _Null


def test_parameter_ctx_map_is_mxnets_table():
    p = mx.gluon.Parameter("w", shape=(2,))
    assert p._ctx_map is None
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert p._ctx_map == [[], [0, 1]]         # MXNet 1.9.1: [[], [0, 1]]
    p.reset_ctx(mx.cpu(2))
    assert p._ctx_map == [[], [None, None, 0]]


def test_reset_ctx_of_an_uninitialised_parameter_is_a_value_error():
    with pytest.raises(ValueError, match="has not been initialized"):
        mx.gluon.Parameter("q", shape=(2,)).reset_ctx(mx.cpu())


def test_null_means_not_given_in_operator_calls():
    x = mx.nd.ones((1, 1, 4, 4))
    w = mx.nd.ones((2, 1, 3, 3))
    out = mx.nd.Convolution(x, w, _Null, kernel=(3, 3), num_filter=2, no_bias=True, workspace=_Null)
    assert out.shape == (1, 2, 2, 2) and float(out.asnumpy()[0, 0, 0, 0]) == 9.0
    node = mx.sym.Convolution(mx.sym.var("x"), kernel=(3, 3), num_filter=2, workspace=_Null, name="c")
    assert "workspace" not in node.list_attr()
    assert node.list_arguments() == ["x", "c_weight", "c_bias"]


def test_multi_worker_iter_keeps_mxnets_protocol_for_subclasses():
    # GluonCV's random-transform loader subclasses _MultiWorkerIter with MXNet's signature and
    # overrides _push_next with its own worker function (returning pickled batches)
    from multiprocessing.pool import ThreadPool
    from mxtorch.gluon.data import dataloader
    from mxtorch.gluon.data.sampler import BatchSampler, SequentialSampler

    data = mx.nd.arange(12).reshape((6, 2))

    def worker(samples, transform, batchify_fn):
        return batchify_fn([transform(data[i]) for i in samples])

    class RandomTransformIter(dataloader._MultiWorkerIter):
        def __init__(self, transform, worker_pool, batchify_fn, batch_sampler, prefetch=0):
            super().__init__(worker_pool, batchify_fn, batch_sampler, worker_fn=worker, prefetch=0,
                             dataset=data)
            self._transform = transform
            for _ in range(prefetch):
                self._push_next()

        def _push_next(self):
            samples = next(self._iter, None)
            if samples is None:
                return
            self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
                self._worker_fn, (samples, self._transform, self._batchify_fn))
            self._sent_idx += 1

    pool = ThreadPool(2)
    try:
        batches = RandomTransformIter(lambda x: x * 10, pool, dataloader.default_batchify_fn,
                                      BatchSampler(SequentialSampler(6), 4, "keep"), prefetch=2)
        assert len(batches) == 2
        got = [batch.asnumpy().tolist() for batch in batches]
    finally:
        pool.terminate()
    assert got == [[[0, 10], [20, 30], [40, 50], [60, 70]], [[80, 90], [100, 110]]]
