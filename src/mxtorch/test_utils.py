"""Testing helpers with MXNet 1.9.1's ``mx.test_utils`` names and signatures.

MXNet kept them in one module; mxtorch keeps them by family and this module gives every name
of all of them (and the modules MXNet's ``from mxnet.test_utils import *`` exported):

- :mod:`mxtorch.test_environment`: environment variables for a block, the default context /
  dtype, visible GPUs, probes of the run;
- :mod:`mxtorch.test_compare`: tolerances, ``almost_equal`` / ``assert_almost_equal`` and
  relatives, NumPy reference reductions;
- :mod:`mxtorch.test_inputs`: random shapes and arrays (dense and sparse), input builders,
  ``DummyIter``;
- :mod:`mxtorch.test_checks`: gradient, forward / backward, consistency, speed, Gluon
  hybridize and optimizer checks;
- :mod:`mxtorch.test_statistics`: ``retry`` and the checks of random generators;
- :mod:`mxtorch.test_data`: data-set downloads (MNIST, CIFAR-10, models).

Sparse storage types are not supported by the symbolic checks (MXNetError).
"""
from __future__ import annotations

import bz2  # noqa: F401  (MXNet's module exported these modules through ``import *``)
import contextlib  # noqa: F401
import errno  # noqa: F401
import functools  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np  # noqa: F401
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401
import torch  # noqa: F401

from .base import MXNetError  # noqa: F401
from .util import setenv, getenv, use_np, get_cuda_compute_capability  # noqa: F401
from .context import Context, current_context  # noqa: F401
from .ndarray.ndarray import NDArray, array as _nd_array  # noqa: F401
from .ndarray.ndarray import array  # noqa: F401
from .symbol.symbol import Symbol  # noqa: F401
from .runtime import Features  # noqa: F401
from . import io as _io  # noqa: F401

# ``from mxnet.test_utils import *`` gave ``mx``, the package.  The package is the module above
# this one (its __init__ imports this module), so it is not imported here: its module object,
# created before any of its submodules is imported, is bound under MXNet's name.
mx = sys.modules[__name__.rpartition(".")[0]]

from .test_environment import (environment, discard_stderr, default_context,  # noqa: E402,F401
                               set_default_context, default_dtype, list_gpus, is_cd_run, is_aarch64_run,
                               has_tvm_ops, is_op_runnable)
from .test_compare import (default_rtols, default_atols, default_numeric_eps,  # noqa: E402,F401
                           effective_dtype, get_tolerance, get_tols, get_rtol, get_atol, get_etol, _as_numpy,
                           almost_equal, locationError, _item, assert_almost_equal,
                           assert_almost_equal_ignore_nan, assert_allclose, assert_exception, same, same_array,
                           checkShapes, compare_ndarray_tuple, np_reduce, collapse_sum_like,
                           assert_almost_equal_with_err)
from .test_inputs import (rand_shape_2d, rand_shape_3d, rand_shape_nd, random_arrays,  # noqa: E402,F401
                          random_uniform_arrays, random_sample, rand_sparse_ndarray, rand_ndarray,
                          assign_each, assign_each2, create_2d_tensor, create_vector,
                          get_identity_mat, get_identity_mat_batch, create_sparse_array, create_sparse_array_zd,
                          shuffle_csr_column_indices, rand_coord_2d, new_matrix_with_real_eigvals_2d,
                          new_matrix_with_real_eigvals_nd, new_orthonormal_matrix_2d,
                          new_sym_matrix_with_real_eigvals_2d, new_sym_matrix_with_real_eigvals_nd, DummyIter)
from .test_checks import (_parse_location, _parse_aux_states, _to_ndarray,  # noqa: E402,F401
                          _output_sum, _perturbation_writer, _finite_differences, numeric_grad,
                          _NUMERIC_RTOLS, _NUMERIC_ATOLS, check_numeric_gradient, check_symbolic_forward,
                          check_symbolic_backward, simple_forward, check_consistency, same_symbol_structure,
                          check_speed, check_gluon_hybridize_consistency, compare_optimizer)
from .test_statistics import (retry, mean_check, var_check, gen_buckets_probs_with_ppf,  # noqa: E402,F401
                              chi_square_check, verify_generator)
from .test_data import (download, download_model, get_im2rec_path,  # noqa: E402,F401
                        get_mnist, get_mnist_pkl, get_mnist_ubyte, get_cifar10,
                        get_mnist_iterator, get_zip_data, get_bz2_data)
from . import test_data as _test_data  # noqa: E402,F401

# ``from mxnet.test_utils import *`` exported every public name of MXNet's module (it had no __all__),
# the modules it imported included; these are the ones mxtorch's module has.
from .util import star_exports  # noqa: E402
__all__ = star_exports(__name__, globals())
