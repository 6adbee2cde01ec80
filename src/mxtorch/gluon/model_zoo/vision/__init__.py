"""``mx.gluon.model_zoo.vision``: image classification networks with MXNet 1.9.1's parameter
names, and ``get_model(name, **kwargs)``."""
from ....base import MXNetValueError
from .resnet import *  # noqa: F401,F403
from . import resnet

_models = {f"resnet{depth}_v{version}": getattr(resnet, f"resnet{depth}_v{version}")
           for depth in (18, 34, 50, 101, 152) for version in (1, 2)}

for _module_name in ("alexnet", "vgg", "densenet", "squeezenet", "inception", "mobilenet"):
    try:
        _module = __import__(f"{__name__}.{_module_name}", fromlist=["*"])
    except ModuleNotFoundError as _error:      # not written yet
        if _error.name != f"{__name__}.{_module_name}":
            raise
        continue
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    _models.update(getattr(_module, "_models", {}))


def get_model(name, **kwargs):
    """The network called ``name`` (``'resnet18_v1'``, ``'vgg16_bn'``, ``'squeezenet1.0'``,
    ``'inceptionv3'``, ``'mobilenetv2_1.0'``, ...); ``kwargs`` (``classes``, ``pretrained``,
    ``ctx``, ``root``) go to its constructor.  MXNetValueError (a ValueError) listing the
    names for an unknown one."""
    key = name.lower()
    if key not in _models:
        raise MXNetValueError(f"get_model: model {name!r} is not supported; available: "
                              f"{', '.join(sorted(_models))}")
    return _models[key](**kwargs)
