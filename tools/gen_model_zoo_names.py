"""Write tests/data/model_zoo_params.json: for each model of MXNet 1.9.1's
gluon.model_zoo.vision, the ordered parameter names and shapes (after one forward pass),
classes=10.  Run with the reference venv from outside the repository root:

    cd /tmp && /root/mxref/bin/python /path/to/tools/gen_model_zoo_names.py /path/to/tests/data/model_zoo_params.json
"""
import json
import sys

import mxnet as mx

MODELS = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
          "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
          "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
          "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
          "squeezenet1.0", "squeezenet1.1", "inceptionv3",
          "mobilenet1.0", "mobilenet0.75", "mobilenet0.5", "mobilenet0.25",
          "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25"]

result = {}
for name in MODELS:
    net = mx.gluon.model_zoo.vision.get_model(name, classes=10)
    net.initialize()
    size = 299 if name == "inceptionv3" else 224
    out = net(mx.nd.zeros((1, 3, size, size)))
    params = net.collect_params()
    result[name] = {"prefix": net.prefix, "input": size, "output": list(out.shape),
                    "params": [[k, list(v.shape)] for k, v in params.items()]}
    print(name, len(result[name]["params"]), flush=True)
json.dump(result, open(sys.argv[1], "w"), indent=0)
