"""``mx.np``'s creation, sampling and repetition functions refuse bad shape / size / count
arguments as MXNet 1.9.1 refused them, with an MXNetError that is also NumPy's TypeError (a
float, bool, None or string entry) or ValueError (a negative size), naming the function (or,
for what reaches an operator as given, the operator) and the argument, what was expected and
what was given; what MXNet accepted (numpy integers, a size given as an int or as MXNet's text,
zero sizes) keeps MXNet's result.

The MXNet 1.9.1 outcome of each case is noted beside it (``~/mxref``, ``npx.set_np()``)."""
import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import np, npx
from mxtorch.base import MXNetError, MXNetTypeError, MXNetValueError
from mxtorch.ops.numpy_ops import NumpyArgumentTypeError, NumpyArgumentValueError, numpy_argument
from mxtorch.ops.registry import get_operator
from mxtorch.schema import NumpyInt, NumpyShape, numpy_integer, numpy_shape


pytestmark = pytest.mark.usefixtures("numpy_semantics")        # conftest: npx.set_np() per test


def _refused(kind, call, *parts):
    with pytest.raises(kind) as info:
        call()
    assert isinstance(info.value, MXNetError)
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    return message


# -- negative sizes: ValueError (NumPy: "negative dimensions are not allowed") ---------------------
NEGATIVE_SIZES = [
    # (call, function, argument, size named)                MXNet 1.9.1
    (lambda: np.zeros((-2,)), "mx.np.zeros", "shape", "-2"),   # MXNetError dim_size >= -1 ... received -2
    (lambda: np.zeros(-1), "mx.np.zeros", "shape", "-1"),      # MXNetError inferring shapes failed
    (lambda: np.ones((2, -2)), "mx.np.ones", "shape", "-2"),   # MXNetError dim_size >= -1
    (lambda: np.full((-2,), 1), "mx.np.full", "shape", "-2"),  # MXNetError dim_size >= -1
    (lambda: np.empty((-2,)), "mx.np.empty", "shape", "-2"),   # OverflowError (negative to unsigned)
    (lambda: np.indices((-2, 2)), "mx.np.indices", "dimensions", "-2"),  # MXNetError dim_size >= -1
    (lambda: np.random.uniform(size=(-2,)), "mx.np.random.uniform", "size", "-2"),  # MXNetError dim_size >= -1
    # MXNetError Shape dim size cannot be a negative value -1
    (lambda: np.random.uniform(size=-1), "mx.np.random.uniform", "size", "-1"),
    (lambda: np.random.uniform(np.zeros((2,)), 1, size=(-1, 2)), "mx.np.random.uniform", "size", "-1"),
    (lambda: np.random.normal(size=(2, -1)), "mx.np.random.normal", "size", "-1"),
    (lambda: np.random.normal(np.zeros((2,)), 1, size=(3, -2)), "mx.np.random.normal", "size", "-2"),
    (lambda: np.random.lognormal(size=-1), "mx.np.random.lognormal", "size", "-1"),
    (lambda: np.random.randn(-2), "mx.np.random.randn", "size", "-2"),
    (lambda: np.random.rand(-2), "mx.np.random.rand", "size", "-2"),
    (lambda: np.random.randint(0, 5, size=(-2,)), "mx.np.random.randint", "size", "-2"),
    # MXNetError inferring shapes failed
    (lambda: np.random.randint(0, 5, size=-1), "mx.np.random.randint", "size", "-1"),
    (lambda: np.random.choice(5, size=(-2,)), "mx.np.random.choice", "size", "-2"),
    (lambda: np.random.choice(5, size=-1), "mx.np.random.choice", "size", "-1"),
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=(-2,)), "mx.np.random.multinomial", "size", "-2"),
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=-1), "mx.np.random.multinomial", "size", "-1"),
    (lambda: np.random.gamma(1.0, size=(-2,)), "mx.np.random.gamma", "size", "-2"),
    # MXNetError (a uniform low/high check)
    (lambda: np.random.gamma(1.0, size=-1), "mx.np.random.gamma", "size", "-1"),
    (lambda: np.random.beta(1.0, 1.0, size=-1), "mx.np.random.beta", "size", "-1"),
    (lambda: np.random.chisquare(1.0, size=(-2,)), "mx.np.random.chisquare", "size", "-2"),
    (lambda: np.random.exponential(size=(-2,)), "mx.np.random.exponential", "size", "-2"),
    (lambda: np.random.logistic(size=(-2,)), "mx.np.random.logistic", "size", "-2"),
    (lambda: np.random.gumbel(size=(-2,)), "mx.np.random.gumbel", "size", "-2"),
    (lambda: np.random.laplace(size=(-2,)), "mx.np.random.laplace", "size", "-2"),
    (lambda: np.random.rayleigh(size=(-2,)), "mx.np.random.rayleigh", "size", "-2"),
    (lambda: np.random.weibull(1.0, size=(-2,)), "mx.np.random.weibull", "size", "-2"),
    (lambda: np.random.pareto(1.0, size=(-2,)), "mx.np.random.pareto", "size", "-2"),
    (lambda: np.random.power(1.0, size=(-2,)), "mx.np.random.power", "size", "-2"),
    (lambda: np.random.multivariate_normal(np.zeros(2), np.eye(2), size=(-2,)), "mx.np.random.multivariate_normal",
     "size", "-2"),
    (lambda: npx.random.bernoulli(0.5, size=(-2,)), "mx.npx.random.bernoulli", "size", "-2"),
    (lambda: np.tile(np.zeros((2,)), -1), "mx.np.tile", "reps", "-1"),         # MXNetError dim_size >= -1 (-2)
    (lambda: np.tile(np.zeros((2,)), (2, -1)), "mx.np.tile", "reps", "-1"),
    (lambda: np.zeros((2,)).tile(-1), "mx.np.ndarray.tile", "reps", "-1"),
    # MXNetError repeats cannot be a negative number
    (lambda: np.repeat(np.zeros((2,)), -1), "mx.np.repeat", "repeats", "-1"),
    (lambda: np.repeat(np.zeros((2,)), -1, axis=0), "mx.np.repeat", "repeats", "-1"),
    (lambda: np.repeat(np.zeros((2,)), [1, -1]), "mx.np.repeat", "repeats", "-1"),  # NumPy: ValueError
    (lambda: np.zeros((2,)).repeat(-1), "mx.np.ndarray.repeat", "repeats", "-1"),
]


@pytest.mark.parametrize("call, function, argument, size", NEGATIVE_SIZES)
def test_negative_sizes_raise_value_errors_naming_function_and_argument(call, function, argument, size):
    message = _refused(ValueError, call, f"{function}: argument '{argument}'", "at least 0",
                       "negative dimensions are not allowed", f"got {size}")
    assert "Trying to create tensor" not in message and "broadcast" not in message
    with pytest.raises(NumpyArgumentValueError):
        call()


@pytest.mark.parametrize("call, function, argument, value", [
    # MXNetError negative dimensions are not allowed. N is -1
    (lambda: np.eye(-1), "mx.np.eye", "N", "-1"),
    (lambda: np.eye(3, -1), "mx.np.eye", "M", "-1"),            # MXNetError ... M is -1
    (lambda: np.identity(-2), "mx.np.identity", "n", "-2"),     # ValueError Input 'n' cannot be negative
    # MXNetError Number of sequence should be non-negative
    (lambda: np.linspace(0, 1, -1), "mx.np.linspace", "num", "-1"),
    (lambda: np.logspace(0, 1, -2), "mx.np.logspace", "num", "-2"),
    # MXNet: drew anyway; NumPy ValueError n < 0
    (lambda: np.random.multinomial(-1, [0.5, 0.5]), "mx.np.random.multinomial", "n", "-1"),
])
def test_negative_counts_raise_value_errors(call, function, argument, value):
    _refused(NumpyArgumentValueError, call, f"{function}: argument '{argument}'", "an integer of at least 0",
             f"got {value}")


@pytest.mark.parametrize("newshape, size", [((-2, 3), "-2"), ((-3, 2), "-3"), ((2, -4), "-4")])
def test_reshape_sizes_below_minus_one_are_refused(newshape, size):
    # MXNet: MXNetError "The shape dimension size to inferred must be -1" (-2 vs. -1)
    for function, call in (("mx.np.reshape", lambda: np.reshape(np.zeros((6,)), newshape)),
                           ("mx.np.ndarray.reshape", lambda: np.zeros((6,)).reshape(*newshape))):
        _refused(ValueError, call, f"{function}: argument 'newshape'", "at least -1", "-1: the one size to infer",
                 f"got {size}")


def test_reshape_keeps_its_one_unknown_size_and_size_checks():
    assert np.reshape(np.zeros((6,)), -1).shape == (6,)              # MXNet (6,)
    assert np.zeros((6,)).reshape((2, -1)).shape == (2, 3)           # MXNet (2, 3)
    _refused(MXNetError, lambda: np.reshape(np.zeros((6,)), (-1, -1)), "one unknown dimension")
    _refused(MXNetError, lambda: np.reshape(np.zeros((6,)), (4, 3)), "cannot reshape array of size 6")


# -- wrong types: TypeError (before, a float was cut to an int, 2.5 to 2) ------------------------------
@pytest.mark.parametrize("call, function, argument, shown", [
    # MXNet 1.9.1: MXNetError "Invalid Parameter format for <argument> expect Shape(tuple) / int"
    # unless noted
    (lambda: np.zeros((2.5,)), "mx.np.zeros", "shape", "float 2.5"),        # ValueError don't know how to convert float
    (lambda: np.zeros((2.0,)), "mx.np.zeros", "shape", "float 2.0"),
    (lambda: np.zeros(2.0), "mx.np.zeros", "shape", "float 2.0"),
    (lambda: np.zeros("3"), "mx.np.zeros", "shape", "str '3'"),             # MXNetError expected ObjectCell but get str
    (lambda: np.zeros((2, "3")), "mx.np.zeros", "shape", "str '3'"),
    # MXNet: segmentation fault; NumPy 2 TypeError
    (lambda: np.zeros(None), "mx.np.zeros", "shape", "got None"),
    (lambda: np.zeros(np.array([2, 3])), "mx.np.zeros", "shape", "ndarray"),  # MXNetError unknown type_code=14
    (lambda: np.ones((2.5,)), "mx.np.ones", "shape", "float 2.5"),
    (lambda: np.ones((True,)), "mx.np.ones", "shape", "bool True"),
    (lambda: np.ones(("3",)), "mx.np.ones", "shape", "str '3'"),
    (lambda: np.ones("a"), "mx.np.ones", "shape", "str 'a'"),
    (lambda: np.ones(None), "mx.np.ones", "shape", "got None"),             # MXNetError inferring shapes failed
    (lambda: np.full((2.5,), 1), "mx.np.full", "shape", "float 2.5"),
    # TypeError 'float' object cannot be interpreted
    (lambda: np.empty((2.5,)), "mx.np.empty", "shape", "float 2.5"),
    (lambda: np.empty("3"), "mx.np.empty", "shape", "str '3'"),             # TypeError cannot use a str
    (lambda: np.eye(2.5), "mx.np.eye", "N", "float 2.5"),
    (lambda: np.eye(True), "mx.np.eye", "N", "bool True"),
    (lambda: np.eye(None), "mx.np.eye", "N", "got None"),
    (lambda: np.eye(3, 2.5), "mx.np.eye", "M", "float 2.5"),
    (lambda: np.eye(3, k=1.5), "mx.np.eye", "k", "float 1.5"),
    (lambda: np.identity(2.5), "mx.np.identity", "n", "float 2.5"),         # TypeError Input 'n' should be an integer
    (lambda: np.identity("3"), "mx.np.identity", "n", "str '3'"),           # TypeError Input 'n' should be an integer
    (lambda: np.identity(True), "mx.np.identity", "n", "bool True"),
    (lambda: np.linspace(0, 1, 2.5), "mx.np.linspace", "num", "float 2.5"),
    (lambda: np.linspace(0, 1, 2.0), "mx.np.linspace", "num", "float 2.0"),
    (lambda: np.linspace(0, 1, True), "mx.np.linspace", "num", "bool True"),
    (lambda: np.logspace(0, 1, 2.5), "mx.np.logspace", "num", "float 2.5"),
    (lambda: np.indices((2.5, 2)), "mx.np.indices", "dimensions", "float 2.5"),
    (lambda: np.indices(("2", 2)), "mx.np.indices", "dimensions", "str '2'"),
    (lambda: np.broadcast_to(np.zeros((2,)), (2.5, 2)), "mx.np.broadcast_to", "shape", "float 2.5"),
    (lambda: np.broadcast_to(np.zeros((2,)), 2.5), "mx.np.broadcast_to", "shape", "float 2.5"),
    (lambda: np.zeros((2,)).broadcast_to((2.5, 2)), "mx.np.ndarray.broadcast_to", "shape", "float 2.5"),
    (lambda: np.random.uniform(size=(2.5,)), "mx.np.random.uniform", "size", "float 2.5"),
    (lambda: np.random.uniform(size=2.5), "mx.np.random.uniform", "size", "float 2.5"),
    (lambda: np.random.uniform(size=(True,)), "mx.np.random.uniform", "size", "bool True"),
    (lambda: np.random.uniform(size=(2, None)), "mx.np.random.uniform", "size", "got None"),
    (lambda: np.random.uniform(size=("3",)), "mx.np.random.uniform", "size", "str '3'"),
    (lambda: np.random.uniform(size="a"), "mx.np.random.uniform", "size", "str 'a'"),
    (lambda: np.random.uniform(size=onp.float32(2)), "mx.np.random.uniform", "size", "float32"),
    (lambda: np.random.uniform(np.zeros((2,)), 1, size=(2.5, 2)), "mx.np.random.uniform", "size", "float 2.5"),
    (lambda: np.random.normal(size=(2.5,)), "mx.np.random.normal", "size", "float 2.5"),
    (lambda: np.random.lognormal(size=(2.5,)), "mx.np.random.lognormal", "size", "float 2.5"),
    (lambda: np.random.rand(2.5), "mx.np.random.rand", "size", "float 2.5"),
    (lambda: np.random.randn(2.5), "mx.np.random.randn", "size", "float 2.5"),
    (lambda: np.random.gamma(1.0, size=(2.5,)), "mx.np.random.gamma", "size", "float 2.5"),
    (lambda: np.random.beta(1.0, 1.0, size=(2.5,)), "mx.np.random.beta", "size", "float 2.5"),
    (lambda: np.random.chisquare(1.0, size=(2.5,)), "mx.np.random.chisquare", "size", "float 2.5"),
    (lambda: np.random.exponential(size=(2.5,)), "mx.np.random.exponential", "size", "float 2.5"),
    (lambda: np.random.gumbel(size=(2.5,)), "mx.np.random.gumbel", "size", "float 2.5"),
    (lambda: np.random.rayleigh(size=(2.5,)), "mx.np.random.rayleigh", "size", "float 2.5"),
    (lambda: np.random.pareto(1.0, size=(2.5,)), "mx.np.random.pareto", "size", "float 2.5"),
    (lambda: np.random.power(1.0, size=(2.5,)), "mx.np.random.power", "size", "float 2.5"),
    (lambda: np.random.multivariate_normal(np.zeros(2), np.eye(2), size=(2.5,)), "mx.np.random.multivariate_normal",
     "size", "float 2.5"),                                                   # MXNetError (custom op shape inference)
    (lambda: np.random.randint(0, 5, size=(2.5,)), "mx.np.random.randint", "size", "float 2.5"),
    (lambda: np.random.randint(0, 5, size=2.5), "mx.np.random.randint", "size", "float 2.5"),
    (lambda: np.random.randint(0, 5, size=(True,)), "mx.np.random.randint", "size", "bool True"),
    (lambda: np.random.randint(2.5), "mx.np.random.randint", "high", "float 2.5"),
    (lambda: np.random.randint(0, 5.5), "mx.np.random.randint", "high", "float 5.5"),
    (lambda: np.random.choice(5, size=(2.5,)), "mx.np.random.choice", "size", "float 2.5"),
    (lambda: np.random.choice(5, size=2.0), "mx.np.random.choice", "size", "float 2.0"),
    (lambda: np.random.choice(5, size=(True,)), "mx.np.random.choice", "size", "bool True"),
    (lambda: np.random.multinomial(2.5, [0.5, 0.5]), "mx.np.random.multinomial", "n", "float 2.5"),
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=(2.5,)), "mx.np.random.multinomial", "size", "float 2.5"),
    (lambda: npx.random.bernoulli(0.5, size=(2.5,)), "mx.npx.random.bernoulli", "size", "float 2.5"),
    (lambda: np.reshape(np.zeros((6,)), (2.5, 3)), "mx.np.reshape", "newshape", "float 2.5"),
    (lambda: np.reshape(np.zeros((6,)), (2.0, 3)), "mx.np.reshape", "newshape", "float 2.0"),
    (lambda: np.reshape(np.zeros((6,)), 6.0), "mx.np.reshape", "newshape", "float 6.0"),
    (lambda: np.zeros((6,)).reshape(2.5, 3), "mx.np.ndarray.reshape", "newshape", "float 2.5"),
    (lambda: np.reshape(np.zeros((6,)), (True, 6)), "mx.np.reshape", "newshape", "bool True"),
    (lambda: np.reshape(np.zeros((6,)), (2, "3")), "mx.np.reshape", "newshape", "str '3'"),
    (lambda: np.reshape(np.zeros((6,)), (2, None)), "mx.np.reshape", "newshape", "got None"),
    # MXNetError inferring shapes failed
    (lambda: np.reshape(np.zeros((6,)), None), "mx.np.reshape", "newshape", "got None"),
    (lambda: np.reshape(np.zeros((6,)), "a"), "mx.np.reshape", "newshape", "str 'a'"),
    (lambda: np.tile(np.zeros((2,)), (2.5,)), "mx.np.tile", "reps", "float 2.5"),
    (lambda: np.tile(np.zeros((2,)), 2.5), "mx.np.tile", "reps", "float 2.5"),
    (lambda: np.tile(np.zeros((2,)), True), "mx.np.tile", "reps", "bool True"),
    (lambda: np.repeat(np.zeros((2,)), 2.5), "mx.np.repeat", "repeats", "float 2.5"),
    (lambda: np.repeat(np.zeros((2,)), 2.0), "mx.np.repeat", "repeats", "float 2.0"),  # NumPy took 2.0; MXNet refused
    (lambda: np.repeat(np.zeros((2,)), True), "mx.np.repeat", "repeats", "bool True"),
    (lambda: np.repeat(np.zeros((2,)), None), "mx.np.repeat", "repeats", "got None"),
])
def test_non_integer_arguments_raise_type_errors(call, function, argument, shown):
    message = _refused(TypeError, call, f"{function}: argument '{argument}'", "expected", shown, "(given ")
    assert "int()" not in message and "iterable" not in message
    with pytest.raises(NumpyArgumentTypeError):
        call()


def test_reshape_needs_a_shape():
    # MXNet: TypeError reshape() takes exactly 1 argument (0 given); before: reshape to ()
    _refused(MXNetTypeError, lambda: np.zeros((6,)).reshape(), "mx.np.ndarray.reshape", "expected the new shape")


def test_shuffle_takes_an_array():
    # MXNet: AssertionError "Argument data must have NDArray type, but got [1, 2]"
    for value in ([1, 2], onp.zeros(3), 3):
        with pytest.raises(AssertionError, match=r"mx\.np\.random\.shuffle: argument 'x' must be an mx\.np\.ndarray"):
            np.random.shuffle(value)
    zero_dim = np.array(5.0)
    assert np.random.shuffle(zero_dim) is None and float(zero_dim) == 5.0   # MXNet: None, unchanged


def test_choice_population_must_be_positive_or_an_array():
    # NumPy: ValueError "a must be greater than 0 unless no samples are taken"; MXNet 1.9.1
    # returned an index anyway for choice(-1) and choice(0)
    for a in (-1, 0):
        _refused(MXNetValueError, lambda: np.random.choice(a), "Operator _npi_choice",
                 "a must be greater than 0 unless no samples are taken", f"a={a}")
    assert np.random.choice(0, size=0).shape == (0,)                 # MXNet (0,)
    # MXNet: MXNetError (axis out of range); NumPy ValueError; before: "tuple index out of range"
    _refused(MXNetValueError, lambda: np.random.choice(np.zeros(())), "Operator _npi_choice",
             "an integer or an array of at least one dimension", "zero-dim")
    assert np.random.choice(np.zeros((2, 2))).shape == (2,)          # MXNet (2,): a row


def test_randint_needs_low_below_high():
    # NumPy: ValueError low >= high (MXNet 1.9.1 drew from the empty range)
    _refused(MXNetValueError, lambda: np.random.randint(5, 1), "Operator _npi_random_randint", "low >= high",
             "(5 >= 1)")


# -- what MXNet 1.9.1 accepted keeps its result ------------------------------------------------------
@pytest.mark.parametrize("call, shape", [
    (lambda: np.zeros((onp.int64(2),)), (2,)),                       # MXNet (2,)
    (lambda: np.zeros(onp.int32(3)), (3,)),                          # MXNet (3,)
    (lambda: np.zeros((True,)), (1,)),                               # MXNet (1,) (its FFI front end took True as 1)
    (lambda: np.empty((True,)), (1,)),                               # MXNet (1,)
    (lambda: np.zeros([2, 3]), (2, 3)),                              # MXNet (2, 3)
    (lambda: np.zeros((0,)), (0,)),                                  # MXNet (0,)
    (lambda: np.zeros(()), ()),                                      # MXNet ()
    (lambda: np.ones("3"), (3,)),                                    # MXNet (3,): the text of a shape
    (lambda: np.full("3", 1), (3,)),                                 # MXNet (3,)
    (lambda: np.eye("3"), (3, 3)),                                   # MXNet (3, 3)
    (lambda: np.eye(3, onp.int64(2)), (3, 2)),                       # MXNet (3, 2)
    (lambda: np.eye(3, k="1"), (3, 3)),                              # MXNet (3, 3)
    (lambda: np.eye(0), (0, 0)),                                     # MXNet (0, 0)
    (lambda: np.identity(0), (0, 0)),                                # MXNet (0, 0)
    (lambda: np.linspace(0, 1, "3"), (3,)),                          # MXNet (3,)
    (lambda: np.linspace(0, 1, onp.int64(3)), (3,)),                 # MXNet (3,)
    (lambda: np.linspace(0, 1, 0), (0,)),                            # MXNet (0,)
    (lambda: np.logspace(0, 1, 0), (0,)),                            # MXNet (0,)
    (lambda: np.random.uniform(size=None), ()),                      # MXNet ()
    (lambda: np.random.uniform(size=2), (2,)),                       # MXNet (2,)
    (lambda: np.random.uniform(size=onp.int64(2)), (2,)),            # MXNet (2,)
    (lambda: np.random.uniform(size=(onp.int64(2),)), (2,)),         # MXNet (2,)
    (lambda: np.random.uniform(size="3"), (3,)),                     # MXNet (3,)
    (lambda: np.random.uniform(size=()), ()),                        # MXNet ()
    (lambda: np.random.uniform(size=(0,)), (0,)),                    # MXNet (0,)
    (lambda: np.random.uniform(size=[2, 3]), (2, 3)),                # MXNet (2, 3)
    (lambda: np.random.normal(size="3"), (3,)),                      # MXNet (3,)
    (lambda: np.random.normal(size=-0), (0,)),                       # MXNet (0,)
    (lambda: np.random.gamma(1.0, size="2"), (2,)),                  # MXNet (2,)
    (lambda: np.random.randint(0, 5, size=None), ()),                # MXNet ()
    (lambda: np.random.randint(0, 5, size="3"), (3,)),               # MXNet (3,)
    (lambda: np.random.randint("5"), ()),                            # MXNet ()
    (lambda: np.random.randint(onp.int64(5)), ()),                   # MXNet ()
    (lambda: np.random.choice(onp.int64(5)), ()),                    # MXNet ()
    (lambda: np.random.choice(5, size=0), (0,)),                     # MXNet (0,)
    (lambda: np.random.choice(5, size=(2, 0)), (2, 0)),              # MXNet (2, 0)
    (lambda: np.random.choice(5, size=3, replace=False), (3,)),      # MXNet (3,)
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=2), (2, 2)),  # MXNet (2, 2)
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=0), (0, 2)),  # MXNet (0, 2)
    (lambda: np.random.multinomial(3, [0.5, 0.5], size=(2, 0)), (2, 0, 2)),  # MXNet (2, 0, 2)
    (lambda: np.random.multinomial(0, [0.5, 0.5]), (2,)),            # MXNet (2,)
    (lambda: np.random.multinomial("3", [0.5, 0.5]), (2,)),          # MXNet (2,)
    (lambda: np.random.multinomial(onp.int64(3), [0.5, 0.5]), (2,)),  # MXNet (2,)
    (lambda: np.tile(np.zeros((2,)), "2"), (4,)),                    # MXNet (4,)
    (lambda: np.tile(np.zeros((2,)), "22"), (44,)),                  # MXNet (44,): '22' is the text of 22
    (lambda: np.tile(np.zeros((2,)), 0), (0,)),                      # MXNet (0,)
    (lambda: np.tile(np.zeros((2,)), ()), (2,)),                     # MXNet (2,)
    (lambda: np.tile(np.zeros((2,)), [2, 2]), (2, 4)),               # MXNet (2, 4)
    (lambda: np.repeat(np.zeros((2,)), "2"), (4,)),                  # MXNet (4,)
    (lambda: np.repeat(np.zeros((2,)), 0), (0,)),                    # MXNet (0,)
    (lambda: np.repeat(np.zeros((2,)), onp.int64(2)), (4,)),         # MXNet (4,)
    (lambda: np.repeat(np.zeros((2,)), [1, 2]), (3,)),               # MXNet refused a list; NumPy (3,), kept
    (lambda: np.reshape(np.zeros((6,)), "6"), (6,)),                 # MXNet (6,)
    (lambda: np.reshape(np.zeros((6,)), (onp.int64(2), 3)), (2, 3)),  # MXNet (2, 3)
    (lambda: np.zeros((6,)).reshape(onp.int64(6)), (6,)),            # MXNet (6,)
    (lambda: np.reshape(np.zeros((1,)), ()), ()),                    # MXNet ()
    (lambda: np.ones("(2, 3)"), (2, 3)),                             # MXNet (2, 3): the text of a shape
    (lambda: np.random.uniform(size="(2, 3)"), (2, 3)),              # MXNet (2, 3)
    (lambda: np.random.choice("5"), ()),                             # MXNet ()
    (lambda: np.tile(np.zeros((2,)), None), (2,)),                   # MXNet (2,)
    (lambda: np.tile(np.zeros((2,)), onp.int64(2)), (4,)),           # MXNet (4,)
    (lambda: np.repeat(np.zeros((2,)), onp.array(2)), (4,)),         # MXNet (4,)
    (lambda: np.zeros(onp.array([2, 3])), (2, 3)),                   # MXNet refused a NumPy array; NumPy (2, 3), kept
    # MXNet refused numpy ints (TypeError); NumPy (2, 2), kept
    (lambda: np.identity(onp.int64(2)), (2, 2)),
    (lambda: npx.random.bernoulli(0.5, size="2"), (2,)),             # MXNet (2,)
])
def test_what_mxnet_accepted_keeps_its_result(call, shape):
    assert call().shape == shape


# -- the operators read MXNet's text forms (symbol JSON) with the same rules ------------------------
def test_operator_attributes_from_text():
    assert get_operator("_npi_zeros")({"shape": "(2, 3)", "dtype": "float32"}).shape == (2, 3)
    assert get_operator("_npi_uniform")({"size": "None"}).size is None
    assert get_operator("_npi_uniform")({"size": "[2, 3]"}).size == (2, 3)
    assert get_operator("_npi_uniform")({"size": "()"}).size == ()
    assert get_operator("_npi_eye")({"N": "3", "M": "None", "k": "-1"}).k == -1
    with pytest.raises(NumpyArgumentTypeError, match=r"Operator _npi_uniform: attribute 'size': expected integer "
                                                     r"sizes, got float 2\.5 \(given '\(2\.5,\)'\)"):
        get_operator("_npi_uniform")({"size": "(2.5,)"})
    with pytest.raises(NumpyArgumentValueError, match="attribute 'shape'.*got -2"):
        get_operator("_npi_ones")({"shape": "(3, -2)"})
    with pytest.raises(NumpyArgumentTypeError, match="attribute 'num'.*got float 2.5"):
        get_operator("_npi_linspace")({"num": "2.5"})


def test_symbol_front_end_refuses_the_same():
    data = mx.sym.var("data").as_np_ndarray()
    with pytest.raises(MXNetValueError, match="'newshape'.*at least -1"):
        mx.sym.np.reshape(data, (-2, 3))
    with pytest.raises(MXNetTypeError, match="mx.np.tile: argument 'reps'.*float 2.5"):
        mx.sym.np.tile(data, (2.5,))
    with pytest.raises(MXNetTypeError, match="mx.np.zeros: argument 'shape'.*float 2.5"):
        mx.sym.np.zeros((2.5,))
    with pytest.raises(MXNetTypeError, match="mx.np.random.normal: argument 'size'.*float 2.5"):
        mx.sym.np.random.normal(size=(2.5,))


# -- the parsers themselves -------------------------------------------------------------------------
def test_numpy_shape_parser():
    assert NumpyShape(3, "shape") == (3,)
    assert NumpyShape(onp.int64(3), "shape") == (3,)
    assert NumpyShape((2, onp.int32(3)), "shape") == (2, 3)
    assert NumpyShape(onp.array([2, 3]), "shape") == (2, 3)          # NumPy reads an integer array as sizes
    assert NumpyShape("(2, 3)", "shape") == (2, 3)
    assert NumpyShape("", "shape") == ()
    assert numpy_shape(bools=True)((True, 2), "shape") == (1, 2)
    assert numpy_shape(low=-1)((-1, 3), "newshape") == (-1, 3)
    for value, shown in [((2.5,), "float 2.5"), (2.0, "float 2.0"), (None, "None"), (("3",), "str '3'"),
                         ((True,), "bool True"), (onp.array([2.0]), "float64"), ({2: 3}, "dict")]:
        with pytest.raises(MXNetTypeError, match="expected") as info:
            NumpyShape(value, "shape")
        assert shown in str(info.value)
    with pytest.raises(MXNetTypeError, match="got str '3'"):
        numpy_shape(text=False)("3", "shape")
    with pytest.raises(MXNetValueError, match=r"at least 0 \(negative dimensions are not allowed\), got -1"):
        NumpyShape((2, -1), "shape")


def test_numpy_integer_parser():
    assert NumpyInt(onp.int64(3), "N") == 3
    assert NumpyInt("3", "N") == 3
    assert NumpyInt(-3, "k") == -3
    for value in (2.5, 2.0, None, True, "a", "2.5"):
        with pytest.raises(MXNetTypeError, match="expected an integer"):
            NumpyInt(value, "N")
    with pytest.raises(MXNetTypeError):
        numpy_integer(text=False)("3", "n")
    with pytest.raises(MXNetValueError, match="expected an integer of at least 0, got -1"):
        numpy_integer(low=0)(-1, "N")


def test_numpy_argument_names_function_and_argument():
    with pytest.raises(NumpyArgumentTypeError, match=r"^mx\.np\.zeros: argument 'shape': expected integer sizes, "
                                                     r"got float 2\.5 \(given \(2\.5,\)\)$"):
        numpy_argument(NumpyShape, (2.5,), "mx.np.zeros", "shape")
    with pytest.raises(NumpyArgumentValueError, match=r"^mx\.np\.eye: argument 'N': .*got -1 \(given -1\)$"):
        numpy_argument(numpy_integer(low=0), -1, "mx.np.eye", "N")
    with pytest.raises(NumpyArgumentValueError, match=r"^mx\.npx\.random\.uniform_n: argument 'batch_shape': .*got -1"):
        npx.random.uniform_n(batch_shape=(-1,))


# -- integer arguments of the manipulation functions: no silent truncation ------------------------
@pytest.mark.parametrize("call, argument", [
    (lambda x: mx.np.tril(x, k=1.5), "mx.np.tril: argument 'k'"),
    (lambda x: mx.np.triu(x, k=0.5), "mx.np.triu: argument 'k'"),
    (lambda x: mx.np.diag(x, k=1.0), "mx.np.diag: argument 'k'"),
    (lambda x: mx.np.trace(x, axis1=0.0), "mx.np.trace: argument 'axis1'"),
    (lambda x: mx.np.diagonal(x, offset=None), "mx.np.diagonal: argument 'offset'"),
    (lambda x: mx.np.diff(x, n=1.5), "mx.np.diff: argument 'n'"),
    (lambda x: mx.np.rot90(x, k=2.5), "mx.np.rot90: argument 'k'"),
    (lambda x: mx.np.around(x, decimals=1.5), "mx.np.around: argument 'decimals'"),
])
def test_integer_arguments_refuse_floats_instead_of_truncating(call, argument):
    # MXNet 1.9.1: MXNetError "Invalid Parameter format for k expect int but value='1.5'";
    # int() used to cut 1.5 to 1 and return the k=1 triangle
    with pytest.raises(TypeError, match=argument):
        call(mx.np.ones((3, 3)))


def test_integer_arguments_take_python_numpy_and_text_integers():
    x = mx.np.ones((3, 3))
    assert float(mx.np.tril(x, k=onp.int64(-1)).sum()) == 3.0      # below the diagonal
    assert float(mx.np.triu(x, k="1").sum()) == 3.0
    assert float(mx.np.trace(x, offset=1)) == 2.0
    assert mx.np.diff(mx.np.arange(5), n=2).tolist() == [0.0, 0.0, 0.0]


def test_full_refuses_a_fill_value_that_is_not_a_number():
    # MXNet 1.9.1: "Invalid Parameter format for value expect double but value='None'"
    with pytest.raises(TypeError, match="mx.np.full: argument 'fill_value'.*None"):
        mx.np.full((2,), None)
    assert mx.np.full((2,), onp.array(1.5)).tolist() == [1.5, 1.5]
