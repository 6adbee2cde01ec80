"""``mx.gluon.data.vision``: image datasets and transforms."""
from .datasets import (MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageRecordDataset,  # noqa: F401
                       ImageFolderDataset, ImageListDataset)
from . import transforms  # noqa: F401

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset",
           "ImageListDataset", "transforms"]
